"""Hand-written facts for the wiki site: Merrow Point, a small harbour village.

Each article is ``(slug, title, category, sentences, related slugs)``. The
word "inspection" appears nowhere here on purpose: on the whole demo web it
occurs only in anchor text pointing into the robots-disallowed ``/private/``
section, so a search for it can only succeed through anchor text.
"""

from __future__ import annotations

WIKI = "Merrow Point Wiki"

#: ``slug: (title, description)``
CATEGORIES: dict[str, tuple[str, str]] = {
    "places": ("Places", "Buildings, streets, paths and landmarks of Merrow Point."),
    "people": ("People", "Residents of Merrow Point, past and present."),
    "history": ("History", "Events that shaped the village, from the market charter to automation."),
    "nature": ("Nature", "Birds, seals, plants, rocks and tides of the headland."),
    "food": ("Food", "What the village cooks, bakes, smokes and sells."),
    "clubs": ("Clubs and societies", "Groups that meet, play, sail and volunteer in the village."),
    "events": ("Events", "The village year, from the Blessing of the Boats to the Lantern Walk."),
}

ARTICLES: list[tuple[str, str, str, list[str], list[str]]] = [
    (
        "merrow-point-light",
        "Merrow Point Light",
        "places",
        [
            "The Merrow Point Light is a stone lighthouse built in 1871 on the rocks at the tip of the point.",
            "Its lamp was looked after by resident keepers until 1986, when the light was automated.",
            "Since 2019 the tower has been cared for by the Merrow Point Lighthouse Trust, which opens it to visitors on summer weekends.",
        ],
        ["lighthouse-trust", "keepers-cottages", "mary-tregarthen", "automation-1986"],
    ),
    (
        "harbour",
        "Merrow Harbour",
        "places",
        [
            "Merrow Harbour is a small tidal harbour sheltered by a curved granite breakwater.",
            "At low water most of the boats sit on the mud, and children dig for crabs between them.",
            "The harbour is home to a dozen fishing boats, the ferry pontoon and the sailing club.",
        ],
        ["breakwater", "ferry", "fishing-fleet", "sailing-club"],
    ),
    (
        "breakwater",
        "The Breakwater",
        "places",
        [
            "The breakwater was completed in 1849 after three winters of work by quarrymen from the headland.",
            "Walking its length at high tide, with waves breaking on the outer side, is a local tradition.",
            "A small brass plaque near the end marks the level of the 1953 flood.",
        ],
        ["harbour", "great-storm-1953", "quarry", "thomas-penrose"],
    ),
    (
        "ferry",
        "Merrow Ferry",
        "places",
        [
            "The Merrow ferry crosses the estuary to Port Alder every half hour from early morning until late evening.",
            "The crossing takes twelve minutes, and bicycles travel free.",
            "The current boat, the Alder Belle, was built at Alder Marine Works in 2008.",
        ],
        ["harbour", "port-alder", "ferry-history", "tides"],
    ),
    (
        "market-square",
        "Market Square",
        "places",
        [
            "Market Square is the centre of the old village, with the church on one side and the Anchor Inn on the other.",
            "A market has been held here on Thursdays since a charter was granted in 1582.",
            "The stone pump in the middle of the square still works, though nobody drinks from it.",
        ],
        ["anchor-inn", "st-brigids-church", "thursday-market", "market-charter"],
    ),
    (
        "st-brigids-church",
        "St Brigid's Church",
        "places",
        [
            "St Brigid's is the parish church of Merrow Point, built of local granite in the fourteenth century.",
            "Its tower served as a daymark for sailors long before the lighthouse was built.",
            "The churchyard holds the graves of many lighthouse keepers and fishermen.",
        ],
        ["market-square", "keepers-cottages", "blessing-of-boats"],
    ),
    (
        "keepers-cottages",
        "Keepers' Cottages",
        "places",
        [
            "The Keepers' Cottages are a terrace of three houses built beside the lighthouse for the keepers and their families.",
            "One cottage is now a small museum with the keepers' logbooks, uniforms and a brass fog bell.",
            "The other two are let to holidaymakers, and the rent goes to the trust.",
        ],
        ["merrow-point-light", "lighthouse-trust", "agnes-whitlow"],
    ),
    (
        "quarry",
        "Headland Quarry",
        "places",
        [
            "The headland quarry supplied the granite for the breakwater, the lighthouse and most of the older houses.",
            "It closed in 1931 and has filled with rainwater, forming a deep, cold pool.",
            "Swimming there is forbidden, but the cliffs are popular with climbers and nesting fulmars.",
        ],
        ["breakwater", "fulmar", "geology"],
    ),
    (
        "anchor-inn",
        "The Anchor Inn",
        "places",
        [
            "The Anchor Inn has stood on Market Square since at least 1702.",
            "Its back room hosts the folk session on Tuesday evenings and a quiz on Sundays.",
            "The inn sign, an anchor wrapped in rope, was repainted in 2022 by pupils of the village school.",
        ],
        ["market-square", "folk-session", "crab-sandwich"],
    ),
    (
        "harbour-tea-room",
        "The Harbour Tea Room",
        "places",
        [
            "The Harbour Tea Room opened in 1989 in the old net loft above the fish quay.",
            "It serves loose-leaf teas from around the world, including green teas from Hangzhou bought through Lantern Tea in Port Alder.",
            "On spring weekends it runs tastings where visitors compare the first teas of the season.",
        ],
        ["harbour", "anchor-inn", "crab-sandwich"],
    ),
    (
        "headland-walk",
        "Headland Walk",
        "places",
        [
            "The Headland Walk is a five-kilometre circular path from Market Square to the lighthouse and back along the cliffs.",
            "It passes the quarry, the seabird ledges and the best viewpoint over the estuary.",
            "Allow two hours, and keep dogs on leads near the cliff edge.",
        ],
        ["quarry", "merrow-point-light", "coastal-plants", "railway"],
    ),
    (
        "port-alder",
        "Port Alder",
        "places",
        [
            "Port Alder is the city across the estuary, reached by the ferry or by the road bridge upstream.",
            "Most people in Merrow Point work, shop or study there.",
            "Its newspaper, The Harbor Gazette, covers village news as well as the city's.",
        ],
        ["ferry", "railway"],
    ),
    (
        "agnes-whitlow",
        "Agnes Whitlow",
        "people",
        [
            "Agnes Whitlow is a retired harbour pilot and the chair of the Merrow Point Lighthouse Trust.",
            "She grew up in the Keepers' Cottages, where her father was principal keeper in the 1960s.",
            "She led the campaign that saved the lighthouse from sale in 2018.",
        ],
        ["lighthouse-trust", "merrow-point-light", "keepers-cottages"],
    ),
    (
        "thomas-penrose",
        "Thomas Penrose",
        "people",
        [
            "Thomas Penrose (1812-1889) was the engineer who designed the breakwater and the first harbour wall.",
            "He is buried in St Brigid's churchyard under a stone carved with a drawing of the breakwater.",
            "His notebooks are kept in the county archive in Port Alder.",
        ],
        ["breakwater", "st-brigids-church"],
    ),
    (
        "mary-tregarthen",
        "Mary Tregarthen",
        "people",
        [
            "Mary Tregarthen (1851-1930) kept the lighthouse for eleven years after her husband's death, one of the few women keepers of her time.",
            "She is remembered for rowing out to a stranded schooner in the Gale of 1881.",
            "A bench on the breakwater carries her name.",
        ],
        ["merrow-point-light", "great-gale-1881"],
    ),
    (
        "jack-harrow",
        "Jack Harrow",
        "people",
        [
            "Jack Harrow (1921-2004) was a fisherman and storyteller whose recordings of local songs are held by the folk society.",
            "He was a member of the lifeboat crew during the Great Storm of 1953.",
            "The Tuesday Folk Session still ends with one of his songs.",
        ],
        ["folk-session", "great-storm-1953", "fishing-fleet"],
    ),
    (
        "eliza-moon",
        "Eliza Moon",
        "people",
        [
            "Eliza Moon (1890-1972) was a botanist who recorded the wild flowers of the headland for fifty years.",
            "Her pressed flowers, more than three thousand sheets, are now at Port Alder University.",
            "The rare Sea Pea she found on the shingle in 1924 still grows there.",
        ],
        ["sea-pea", "coastal-plants", "headland-walk"],
    ),
    (
        "derek-mallory",
        "Derek Mallory",
        "people",
        [
            "Derek Mallory is a retired telephone engineer and the secretary of the Merrow Point Computer Club.",
            "He has taught hundreds of residents to use computers, starting with how to hold a mouse.",
            "He also looks after this wiki and answers questions on its talk pages.",
        ],
        ["computer-club"],
    ),
    (
        "great-storm-1953",
        "The Great Storm of 1953",
        "history",
        [
            "On the night of 31 January 1953 a storm surge swept over the breakwater and flooded the lower village.",
            "Forty houses were damaged and the fishing fleet lost four boats, but nobody in Merrow Point died.",
            "The flood level is marked on the breakwater and on the wall of the Anchor Inn.",
        ],
        ["breakwater", "jack-harrow", "blessing-of-boats"],
    ),
    (
        "great-gale-1881",
        "The Gale of 1881",
        "history",
        [
            "The gale of October 1881 drove eleven ships ashore along the coast in a single night.",
            "At Merrow Point the schooner Providence was stranded on the reef below the lighthouse, and her crew were saved by Mary Tregarthen.",
            "The ship's bell now hangs in St Brigid's Church.",
        ],
        ["mary-tregarthen", "merrow-point-light", "st-brigids-church"],
    ),
    (
        "market-charter",
        "The Market Charter of 1582",
        "history",
        [
            "In 1582 the village was granted a charter to hold a weekly market and an annual fair.",
            "The charter, written on parchment, is kept in the county archive; a copy hangs in the Anchor Inn.",
            "The Thursday Market continues the tradition more than four centuries later.",
        ],
        ["thursday-market", "market-square"],
    ),
    (
        "pilchard-years",
        "The Pilchard Years",
        "history",
        [
            "For most of the nineteenth century Merrow Point lived on pilchards, small oily fish caught in huge numbers each autumn.",
            "Lookouts called huers watched for shoals from the cliffs and guided the boats with hand signals.",
            "The pilchards disappeared in the 1920s, and the fleet turned to mackerel and crab.",
        ],
        ["fishing-fleet", "harbour", "smoked-mackerel"],
    ),
    (
        "railway",
        "The Merrow Branch Railway",
        "history",
        [
            "A branch railway reached Merrow Point in 1889 and closed in 1964.",
            "It carried fish to the cities overnight and brought holidaymakers back in summer.",
            "The old trackbed is now a footpath and cycle route to Port Alder.",
        ],
        ["headland-walk", "port-alder", "pilchard-years"],
    ),
    (
        "automation-1986",
        "Automation of the Light",
        "history",
        [
            "In 1986 the Merrow Point Light became one of the last lighthouses on the coast to be automated.",
            "The last keepers left in a small ceremony attended by most of the village.",
            "The lamp is now monitored remotely from Port Alder.",
        ],
        ["merrow-point-light", "keepers-cottages"],
    ),
    (
        "ferry-history",
        "A History of the Ferry",
        "history",
        [
            "A ferry has crossed the estuary since at least the fourteenth century, first by rowing boat and later by steam.",
            "The first steam ferry, the Merrow Queen, entered service in 1871, the same year the lighthouse was lit.",
            "Timetables from every decade since 1900 are kept at the village library.",
        ],
        ["ferry", "port-alder"],
    ),
    (
        "fishing-fleet",
        "The Fishing Fleet",
        "history",
        [
            "Twelve boats still fish from Merrow Harbour, most of them crewed by one or two people.",
            "They catch crab, lobster and mackerel, sold at the fish quay or to restaurants in Port Alder.",
            "The fleet was four times larger in the 1950s.",
        ],
        ["harbour", "pilchard-years", "smoked-mackerel", "blessing-of-boats"],
    ),
    (
        "fulmar",
        "Fulmar",
        "nature",
        [
            "Fulmars are grey and white seabirds that nest on ledges of the quarry cliffs from May to September.",
            "They look like gulls but are related to albatrosses, and they glide stiffly on straight wings.",
            "A pair first nested on the headland in 1948; there are now more than sixty.",
        ],
        ["quarry", "seabird-count"],
    ),
    (
        "grey-seal",
        "Grey Seal",
        "nature",
        [
            "Grey seals haul out on the rocks below the lighthouse at low tide.",
            "Pups are born in the autumn in sea caves along the headland.",
            "Visitors are asked to keep well back so that the seals are not frightened into the water.",
        ],
        ["merrow-point-light", "seabird-count", "tides"],
    ),
    (
        "sea-pea",
        "Sea Pea",
        "nature",
        [
            "The Sea Pea is a rare plant of shingle beaches with purple flowers in early summer.",
            "Its seeds can float in seawater for years and still grow.",
            "The colony at Merrow Point was first recorded by Eliza Moon in 1924.",
        ],
        ["eliza-moon", "coastal-plants"],
    ),
    (
        "coastal-plants",
        "Coastal Plants",
        "nature",
        [
            "The headland supports plants that tolerate salt spray, such as thrift, sea campion and rock samphire.",
            "Thrift turns the cliff tops pink in May.",
            "Rock samphire was once gathered for pickling, a practice now discouraged.",
        ],
        ["sea-pea", "headland-walk", "eliza-moon", "laver-cakes"],
    ),
    (
        "seabird-count",
        "The Seabird Count",
        "nature",
        [
            "Every June volunteers count the nesting seabirds on the cliffs between the quarry and the lighthouse.",
            "The results are sent to the national seabird monitoring programme.",
            "Anyone can join; binoculars and a packed lunch are the only requirements.",
        ],
        ["fulmar", "grey-seal", "birdwatching-group"],
    ),
    (
        "tides",
        "Tides at Merrow Point",
        "nature",
        [
            "The tidal range at Merrow Point is about five metres at spring tides.",
            "The harbour dries out for about three hours either side of low water.",
            "Tide times for the week are chalked on a board by the ferry pontoon.",
        ],
        ["harbour", "ferry", "grey-seal"],
    ),
    (
        "geology",
        "Geology of the Headland",
        "nature",
        [
            "The headland is made of granite that pushed up through older slate about 290 million years ago.",
            "Where the two rocks meet, the slate was baked hard and veined with quartz.",
            "Good examples can be seen at low tide on the rocks below the quarry.",
        ],
        ["quarry", "breakwater"],
    ),
    (
        "crab-sandwich",
        "Crab Sandwich",
        "food",
        [
            "The crab sandwich is the village's best-known food, made with brown and white crab meat on thick bread.",
            "Most of the crab comes from the pots of the harbour's two crab boats.",
            "The Anchor Inn and the Harbour Tea Room both claim to make the best one.",
        ],
        ["fishing-fleet", "anchor-inn", "harbour-tea-room"],
    ),
    (
        "saffron-buns",
        "Saffron Buns",
        "food",
        [
            "Saffron buns are sweet yellow buns with currants, baked for the Thursday Market.",
            "Saffron came to the coast through trade, and local bakers have used it for centuries.",
            "Every family has its own recipe, and arguments about the right amount of saffron are common.",
        ],
        ["thursday-market", "market-square"],
    ),
    (
        "smoked-mackerel",
        "Smoked Mackerel",
        "food",
        [
            "Mackerel caught on hand lines are smoked over oak in a shed behind the fish quay.",
            "The smokehouse has been run by the same family since 1958.",
            "Smoked mackerel pâté is sold at the Thursday Market.",
        ],
        ["fishing-fleet", "thursday-market", "pilchard-years"],
    ),
    (
        "laver-cakes",
        "Laver Cakes",
        "food",
        [
            "Laver is a seaweed gathered from the rocks and boiled for hours into a dark paste.",
            "Mixed with oatmeal and fried, it makes laver cakes, traditionally eaten with bacon for breakfast.",
            "Few people still gather it, but the recipe is kept alive at the Harbour Festival.",
        ],
        ["harbour-festival", "coastal-plants"],
    ),
    (
        "thursday-market",
        "Thursday Market",
        "food",
        [
            "The Thursday Market fills Market Square with stalls selling fish, vegetables, bread and crafts.",
            "It continues the market granted by the charter of 1582.",
            "In winter it moves into the church hall.",
        ],
        ["market-charter", "market-square", "saffron-buns"],
    ),
    (
        "lighthouse-trust",
        "Merrow Point Lighthouse Trust",
        "clubs",
        [
            "The Merrow Point Lighthouse Trust is a charity formed in 2018 to save the lighthouse and the Keepers' Cottages.",
            "It holds the tower on a long lease and opens it to visitors on summer weekends.",
            "Its volunteers repaint the lantern room every few years and keep records of every repair.",
        ],
        ["merrow-point-light", "agnes-whitlow", "keepers-cottages"],
    ),
    (
        "computer-club",
        "Merrow Point Computer Club",
        "clubs",
        [
            "The Merrow Point Computer Club meets on Wednesday evenings in the church hall.",
            "Members help each other with everything from sending photographs to writing programs in Kestrel.",
            "The club has run a beginners' evening every month since 2009 and hosts this wiki.",
        ],
        ["derek-mallory"],
    ),
    (
        "sailing-club",
        "Merrow Sailing Club",
        "clubs",
        [
            "The sailing club races small dinghies in the harbour on summer evenings.",
            "Its clubhouse is the old lifeboat house on the slipway.",
            "Juniors learn to sail on Saturday mornings, and the club lends them boats and buoyancy aids.",
        ],
        ["harbour", "regatta", "gig-rowing"],
    ),
    (
        "folk-session",
        "The Tuesday Folk Session",
        "clubs",
        [
            "Musicians gather in the back room of the Anchor Inn every Tuesday evening to play traditional tunes.",
            "Anyone may join in, and newcomers are asked to play one tune of their choice.",
            "By custom the session ends with one of Jack Harrow's songs.",
        ],
        ["anchor-inn", "jack-harrow", "harbour-festival"],
    ),
    (
        "birdwatching-group",
        "Headland Birdwatching Group",
        "clubs",
        [
            "The birdwatching group walks the headland on the first Sunday of each month.",
            "Its members keep a list of every species seen on the point, now more than 240.",
            "The group organises The Seabird Count each June.",
        ],
        ["seabird-count", "fulmar", "headland-walk"],
    ),
    (
        "gig-rowing",
        "Gig Rowing Club",
        "clubs",
        [
            "The gig rowing club races six-oared wooden gigs, long narrow boats once used to carry pilots out to ships.",
            "The club's oldest gig, the Curlew, was built in 1876 and still races.",
            "Training sessions start from the slipway at seven in the morning.",
        ],
        ["regatta", "sailing-club", "harbour"],
    ),
    (
        "harbour-festival",
        "Harbour Festival",
        "events",
        [
            "The Harbour Festival takes place on the last weekend of July, with music, boat races and food stalls on the quay.",
            "It began in 1977 as a fundraiser for the lifeboat.",
            "Planning for the next festival starts each September.",
        ],
        ["regatta", "folk-session", "laver-cakes"],
    ),
    (
        "regatta",
        "Merrow Regatta",
        "events",
        [
            "The regatta is a day of races for sailing dinghies, rowing gigs and swimmers, held in August.",
            "The highlight is the greasy pole, a slippery spar over the harbour that competitors try to walk along.",
            "Prizes are presented on the breakwater by the oldest resident of the village.",
        ],
        ["sailing-club", "gig-rowing", "harbour"],
    ),
    (
        "lantern-walk",
        "Lantern Walk",
        "events",
        [
            "On the shortest day of the year, children carry paper lanterns from the church to the lighthouse.",
            "The walk ends with the lighthouse lamp being switched on by the youngest child present.",
            "Lanterns are made at workshops in the church hall the week before.",
        ],
        ["merrow-point-light", "st-brigids-church"],
    ),
    (
        "blessing-of-boats",
        "Blessing of the Boats",
        "events",
        [
            "Each May the vicar of St Brigid's blesses the fishing fleet from the end of the breakwater.",
            "The boats are decorated with flags and flowers for the occasion.",
            "The service has been held every year since 1954, after the Great Storm of 1953.",
        ],
        ["fishing-fleet", "st-brigids-church", "great-storm-1953"],
    ),
]

#: Sentences that fit any article; ``{title}`` is the article's title.
GENERIC = [
    "If you know more about {title}, please add it; every edit is reviewed by a volunteer.",
    "Photographs of {title} are welcome, especially old ones from family albums.",
    "Much of this article comes from conversations with older residents and from the county archive.",
    "Sources for this article are listed on its talk page.",
    "This article was one of the first written when the wiki started in 2011.",
]

#: ``(date, user, article slug, summary)`` shown on Recent changes.
CHANGES = [
    ("2024-06-28", "Derek Mallory", "computer-club", "Added the summer timetable"),
    ("2024-06-25", "SeabirdSue", "seabird-count", "Added this year's totals"),
    ("2024-06-20", "AgnesW", "lighthouse-trust", "Updated opening hours"),
    ("2024-06-14", "Harbourmaster", "tides", "Corrected the tidal range"),
    ("2024-06-09", "folkfiddler", "folk-session", "Added the list of regular tunes"),
    ("2024-06-02", "AgnesW", "merrow-point-light", "New photograph of the lantern room"),
    ("2024-05-30", "EMoonFan", "sea-pea", "Flowering dates"),
    ("2024-05-21", "crabber", "crab-sandwich", "The Anchor Inn disagrees"),
    ("2024-05-12", "Derek Mallory", "harbour", "Tidied the references"),
    ("2024-05-03", "gigrower", "gig-rowing", "Results from the spring races"),
    ("2024-04-27", "bellringer", "st-brigids-church", "Added the bell history"),
    ("2024-04-18", "TeaRoomTess", "harbour-tea-room", "Spring tasting dates"),
]
