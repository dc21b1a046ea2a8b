"""Hand-written facts for the news site: the Harbor Gazette of Port Alder.

Each story is ``(headline, lead, quote, speaker, role)``; the surrounding
paragraphs come from the per-section pools below, which are worded to fit any
story of their section. ``FIXED`` pins the date of stories other sites link
to, and ``LINKS`` adds their cross-site links.
"""

from __future__ import annotations

from . import paths

PAPER = "The Harbor Gazette"
CITY = "Port Alder"

#: ``slug: (title, description)``
SECTIONS: dict[str, tuple[str, str]] = {
    "city": ("City", "Council decisions, transport, housing and daily life in Port Alder."),
    "business": ("Business", "Companies, jobs, the port and the local economy."),
    "science": ("Science", "Research from the university, the estuary and the night sky."),
    "technology": ("Technology", "Software, networks and the people who build them in Port Alder."),
    "culture": ("Culture", "Music, theatre, books, film and festivals."),
    "sports": ("Sports", "Football, rowing, running and every sport played on land or water."),
}

#: ``(slug, name, sections, biography)``
AUTHORS: list[tuple[str, str, list[str], str]] = [
    (
        "eleanor-price",
        "Eleanor Price",
        ["city"],
        "Eleanor Price is the Gazette's city editor. She has reported on the council for twelve years and still attends every meeting in person.",
    ),
    (
        "tobias-lee",
        "Tobias Lee",
        ["city", "sports"],
        "Tobias Lee covers transport and local sport. He cycles to work across the Alder Street bridge, when it is open.",
    ),
    (
        "amara-diallo",
        "Amara Diallo",
        ["business"],
        "Amara Diallo is the business editor. Before joining the Gazette she worked for ten years at the port.",
    ),
    (
        "hugo-brandt",
        "Hugo Brandt",
        ["science"],
        "Hugo Brandt writes about science and the environment. He trained as a marine biologist at Port Alder University.",
    ),
    (
        "nina-sorensen",
        "Nina Sørensen",
        ["science", "technology"],
        "Nina Sørensen reports on research and technology. She is the paper's data journalist and builds its charts.",
    ),
    (
        "rafael-costa",
        "Rafael Costa",
        ["technology"],
        "Rafael Costa covers technology and the start-ups of the north quay. He has been writing software since he was twelve.",
    ),
    (
        "claire-dubois",
        "Claire Dubois",
        ["culture"],
        "Claire Dubois is the arts editor. She reviews theatre, books and music, and has never missed the folk festival.",
    ),
    (
        "sam-okoro",
        "Sam Okoro",
        ["sports", "culture"],
        "Sam Okoro is the sports editor. He played in goal for Alder Rovers' reserves for three seasons.",
    ),
]

STORIES: dict[str, list[tuple[str, str, str, str, str]]] = {
    "city": [
        (
            "Appeal launched to restore the Merrow Point Light",
            "A community trust has launched an appeal to raise 1.8 million dollars to restore the Merrow Point Light, the lighthouse that has guided ships into Port Alder since 1871.",
            "The light is part of who we are, and it is running out of time.",
            "Agnes Whitlow",
            "chair of the Merrow Point Lighthouse Trust",
        ),
        (
            "Council approves repairs to the Alder Street bridge",
            "Port Alder's council voted on Tuesday to spend 4.2 million dollars repairing the Alder Street bridge, which has been closed to lorries since a crack was found in one of its piers last spring.",
            "Nobody wants to see the bridge shut again, so we are doing the job properly this time.",
            "Martin Osei",
            "the council's transport lead",
        ),
        (
            "New ferry timetable adds late sailings to Merrow Point",
            "The harbour ferry will run until midnight on Fridays and Saturdays from next month, after a trial of late sailings drew more passengers than expected.",
            "People told us they wanted to stay in town for dinner and still get home.",
            "Dana Kowalczyk",
            "operations manager at Alder Harbour Ferries",
        ),
        (
            "Library extends opening hours during exam season",
            "The central library will stay open until ten in the evening for six weeks so that students have somewhere quiet to revise.",
            "Every desk was taken by four o'clock last year.",
            "Ruth Abernathy",
            "the head librarian",
        ),
        (
            "Residents object to car park plan on the old rope works site",
            "More than 600 residents have signed a petition against plans to turn the derelict rope works by the harbour into a multi-storey car park.",
            "It is the last open space on this side of the river, and it should stay that way.",
            "Colm Fitzgerald",
            "who organised the petition",
        ),
        (
            "Tram line extension reaches the university",
            "Trams began running to the university campus on Monday, completing a 3.1-kilometre extension that was two years in the making.",
            "Students will save twenty minutes each way.",
            "Martin Osei",
            "the council's transport lead",
        ),
        (
            "Flood barrier tested ahead of winter storms",
            "Engineers closed the new flood barrier across the Alder estuary for the first time on Sunday, a full-scale rehearsal ahead of the winter storm season.",
            "It closed in eleven minutes, which is exactly what it was designed to do.",
            "Priya Raman",
            "the project's chief engineer",
        ),
        (
            "Market hall roof to be replaced after leaks",
            "The Victorian market hall will close for eight weeks in the new year while its leaking glass roof is replaced.",
            "We have been catching rainwater in buckets for three winters.",
            "Tomás Ferreira",
            "who runs a fruit stall in the hall",
        ),
        (
            "Port Alder sets a target of 10,000 street trees",
            "The council has promised to plant ten thousand street trees by 2030, starting with the neighbourhoods that have the least shade.",
            "Trees are the cheapest way to keep streets cool in summer.",
            "Helen Achebe",
            "the council's environment lead",
        ),
        (
            "Night buses return after a three-year gap",
            "Night buses will run again between the city centre and the northern suburbs from the first weekend of next month.",
            "Hospital and hotel workers have been asking for this since the service was cut.",
            "Samir Haddad",
            "of the Port Alder Bus Users Group",
        ),
        (
            "Old fire station to become a community centre",
            "The disused fire station on Quay Road will reopen as a community centre with a cafe, a workshop and rooms for local clubs.",
            "The building has always served the neighbourhood, and now it will again.",
            "Grace Lindqvist",
            "chair of the Quay Road Residents' Association",
        ),
        (
            "Cycle lanes planned for the harbour road",
            "A protected cycle lane will run the length of the harbour road under plans published for consultation this week.",
            "We counted more bikes than cars on some mornings.",
            "Helen Achebe",
            "the council's environment lead",
        ),
        (
            "Water main burst closes the high street",
            "A burst water main flooded part of the high street on Wednesday morning, closing shops and diverting buses for most of the day.",
            "The pipe was laid in 1912 and it simply gave way.",
            "Priya Raman",
            "an engineer with Alder Water",
        ),
        (
            "Census shows the city growing for the first time in decades",
            "Port Alder's population has grown to 212,000, the first rise recorded by a census since the shipyards closed.",
            "Young families are moving back, and they need schools and homes.",
            "Dr. Lena Hartmann",
            "a demographer at Port Alder University",
        ),
    ],
    "business": [
        (
            "Shipyard wins order for three electric ferries",
            "Alder Marine Works has won a contract worth 96 million dollars to build three battery-powered ferries, its largest order in fifteen years.",
            "This order secures four hundred jobs for the next three years.",
            "Fiona MacLeod",
            "chief executive of Alder Marine Works",
        ),
        (
            "Fish market prices rise after a poor herring season",
            "Herring prices at the harbour fish market have risen by a third since January after the smallest catch on record.",
            "The boats are going further out and coming back with less.",
            "Jonas Eriksen",
            "a trawler skipper",
        ),
        (
            "Local bakery chain opens its tenth shop",
            "Crumb & Co., which began as a single bakery on Mill Lane in 2011, opened its tenth shop on Saturday.",
            "We still bake everything in the same ovens behind the first shop.",
            "Maria Santos",
            "the company's founder",
        ),
        (
            "Port handles record container traffic",
            "The port of Port Alder handled more containers last year than ever before, helped by a new deep-water berth that opened in March.",
            "Ships that used to sail past us now stop here.",
            "Edwin Clarke",
            "the port's commercial director",
        ),
        (
            "Start-up raises funds to build search tools",
            "Quayside Labs, a start-up of twelve people based in the old customs house, has raised 4 million dollars to build search software for small businesses.",
            "Most companies cannot find their own documents, and that is a problem we can fix.",
            "Aiko Tanaka",
            "co-founder of Quayside Labs",
        ),
        (
            "Department store to close after 120 years",
            "Hartley's, the department store on the corner of Alder Street and the high street, will close in the spring after 120 years of trading.",
            "Shopping habits have changed faster than we could.",
            "Peter Hartley",
            "the great-grandson of its founder",
        ),
        (
            "Brewery expands into the old grain warehouse",
            "Estuary Brewing will move into the listed grain warehouse on the north quay, tripling its capacity and opening a taproom.",
            "The building was made for storing barley, so in a way it is going back to its roots.",
            "Owen Pritchard",
            "the head brewer",
        ),
        (
            "Hotel occupancy returns to pre-pandemic levels",
            "Hotels in Port Alder were 84 percent full over the summer, matching the levels last seen in 2019.",
            "Cruise visitors and conferences brought people back.",
            "Sofia Marin",
            "of the Port Alder Hotels Association",
        ),
        (
            "Credit union opens a branch on the east side",
            "The Port Alder Credit Union has opened a branch on the east side, where the last high-street bank closed two years ago.",
            "People should not have to take two buses to pay in a cheque.",
            "Ibrahim Okafor",
            "the credit union's manager",
        ),
        (
            "Farmers' market moves to Sundays",
            "The weekly farmers' market will move from Saturday to Sunday so that it no longer clashes with home games at the harbour ground.",
            "Half our customers were at the match.",
            "Tomás Ferreira",
            "who chairs the market committee",
        ),
        (
            "Wind turbine maker to build blades in the city",
            "A wind turbine manufacturer will open a factory on the former steelworks site to build blades eighty metres long.",
            "The deep-water port is why we chose Port Alder.",
            "Karin Holm",
            "the company's head of operations",
        ),
        (
            "Rents in the city centre rise for a fifth year",
            "Average rents for a two-bedroom flat in the city centre rose by 7 percent last year, according to figures from letting agents.",
            "Wages are not keeping up, and people are moving further out.",
            "Grace Lindqvist",
            "of the Port Alder Tenants' Union",
        ),
        (
            "Tea importer celebrates fifty years on the quay",
            "Lantern Tea, which has imported tea through the port since 1974, celebrated its fiftieth anniversary with an open day at its warehouse.",
            "My father started with one shipment of green tea from Hangzhou.",
            "Mei Chen",
            "the company's managing director",
        ),
    ],
    "science": [
        (
            "Seal numbers in the estuary at a twenty-year high",
            "Volunteers counted 412 grey seals on the sandbanks of the Alder estuary this autumn, the highest number since surveys began.",
            "Cleaner water means more fish, and more fish means more seals.",
            "Dr. Nadia Perez",
            "a marine biologist at Port Alder University",
        ),
        (
            "University telescope spots a new comet",
            "Astronomers at the university observatory have discovered a faint comet that will pass closest to the Sun next spring.",
            "It is small and dim, but it is ours.",
            "Prof. Arthur Bell",
            "director of the observatory",
        ),
        (
            "Study finds microplastics in harbour mussels",
            "Researchers found microplastic fibres in nine out of ten mussels collected from the harbour walls, most of them from synthetic clothing.",
            "Washing machines are a bigger source than most people think.",
            "Dr. Nadia Perez",
            "a marine biologist at Port Alder University",
        ),
        (
            "Tidal energy trial begins off Merrow Point",
            "A floating tidal turbine was anchored off Merrow Point on Thursday to test whether the fast currents there could power a thousand homes.",
            "The tide comes in twice a day whether the wind blows or not.",
            "Dr. Samuel Greene",
            "who leads the trial",
        ),
        (
            "Ancient shipwreck mapped with underwater drones",
            "Archaeologists have mapped the wreck of a seventeenth-century trading ship in the approaches to the harbour using underwater drones.",
            "We can see the cargo of pottery still stacked where it was loaded.",
            "Dr. Ines Moreau",
            "a maritime archaeologist",
        ),
        (
            "Heatwave tested the city's hospitals, study says",
            "Hospital admissions rose by 15 percent during last summer's heatwave, according to a study of five years of records.",
            "Older people living alone on top floors were most at risk.",
            "Dr. Lena Hartmann",
            "a researcher at Port Alder University",
        ),
        (
            "Rare orchid found on the coastal path",
            "A walker has found a colony of bee orchids on the cliffs above the coastal path, the first record of the flower in the county for forty years.",
            "It was growing a metre from the path, and thousands of people must have walked past it.",
            "Rowan Price",
            "county recorder for the botanical society",
        ),
        (
            "Researchers grow seaweed to feed cattle",
            "Scientists are growing red seaweed in tanks at the marine station to test whether adding it to cattle feed reduces methane.",
            "Early results suggest a small amount makes a big difference.",
            "Dr. Samuel Greene",
            "of the university's marine station",
        ),
        (
            "Earthquake sensors installed in schools across the region",
            "Twenty seismic sensors have been installed in schools across the region, so pupils can watch earthquakes around the world arrive as waves.",
            "A large earthquake in Japan shows up here about twenty minutes later.",
            "Dr. Kofi Mensah",
            "a geophysicist at the university",
        ),
        (
            "Bird flu confirmed in gulls on the harbour",
            "Avian influenza has been confirmed in herring gulls found dead on the harbour wall, and the public is asked not to touch sick birds.",
            "Report dead birds, but please leave them where they are.",
            "Dr. Nadia Perez",
            "a marine biologist at Port Alder University",
        ),
        (
            "Moorland named a dark sky reserve",
            "The moorland north of the city has been named a dark sky reserve after measurements showed almost no light pollution.",
            "On a clear night you can see the Milky Way with your own eyes.",
            "Prof. Arthur Bell",
            "director of the observatory",
        ),
        (
            "Robotics laboratory opens at the university",
            "The university has opened a robotics laboratory where students build machines that sort recycling and survey the sea floor.",
            "Our students learn by building things that break, then fixing them.",
            "Prof. Ruth Okonkwo",
            "head of engineering",
        ),
        (
            "Sea level at the harbour rose 21 centimetres in a century",
            "Tide gauge records kept at the harbour since 1921 show that the average sea level has risen by 21 centimetres.",
            "The records were written by hand for sixty years, and they are remarkably good.",
            "Dr. Kofi Mensah",
            "a geophysicist at the university",
        ),
        (
            "Children's science festival breaks its attendance record",
            "More than nine thousand children came to the science festival in the market hall, where they launched water rockets and built circuits.",
            "Seeing a child's face when the rocket goes up is the whole point.",
            "Beth Norris",
            "the festival organiser",
        ),
    ],
    "technology": [
        (
            "Kestrel 2.6 speeds up JSON encoding",
            "Version 2.6 of the Kestrel programming language, released on Tuesday, makes its JSON encoder about twice as fast and adds a formatter for structured logs.",
            "Most programs spend more time turning data into JSON than anyone realises.",
            "Aiko Tanaka",
            "a Kestrel core developer",
        ),
        (
            "Free public wifi arrives on the waterfront",
            "Free wifi now covers the whole waterfront, from the ferry terminal to the maritime museum, after the council installed forty access points.",
            "It is fast enough to stream video, and it is free.",
            "Joy Adeyemi",
            "the council's digital services lead",
        ),
        (
            "Hospital moves patient records to a new system",
            "The city hospital has moved thirty years of patient records to a new computer system over a single weekend.",
            "We rehearsed the move three times before we did it for real.",
            "Dr. Paul Renner",
            "the hospital's chief information officer",
        ),
        (
            "Students build an app to track the harbour ferries",
            "Three students at Port Alder College have built a phone app that shows where each harbour ferry is and when it will arrive.",
            "We were tired of waiting in the rain without knowing if the ferry was coming.",
            "Lily Zhang",
            "one of the students",
        ),
        (
            "Broadband upgrade reaches rural villages",
            "Fibre broadband has reached eleven villages in the hills north of the city, many of which had download speeds below two megabits.",
            "Farmers can now file their paperwork without driving into town.",
            "Joy Adeyemi",
            "the council's digital services lead",
        ),
        (
            "Search engine course fills up in a day",
            "A new evening course at the university on how search engines crawl, index and rank the web filled all sixty places within a day.",
            "Everyone uses search, but very few people know how it works.",
            "Prof. Ruth Okonkwo",
            "who designed the course",
        ),
        (
            "Cyber attack disrupts the port's booking system",
            "A ransomware attack took the port's cargo booking system offline for two days last week, delaying dozens of lorries.",
            "No data was lost, because the backups were kept offline.",
            "Edwin Clarke",
            "the port's commercial director",
        ),
        (
            "Library lends laptops to job seekers",
            "The central library has started lending laptops for up to two weeks to people looking for work.",
            "Applying for jobs on a phone is nearly impossible.",
            "Ruth Abernathy",
            "the head librarian",
        ),
        (
            "Electric bus fleet doubles",
            "Port Alder's bus company now runs sixty electric buses, half its fleet, after a delivery of thirty new vehicles.",
            "Drivers say the electric buses are quieter and easier to handle.",
            "Neil Bramwell",
            "fleet manager at Alder Buses",
        ),
        (
            "Open data portal publishes timetables and air quality",
            "The council has published bus timetables, air quality readings and parking data as open data that anyone can download as CSV or JSON.",
            "Developers have already built three apps with it.",
            "Joy Adeyemi",
            "the council's digital services lead",
        ),
        (
            "Volunteers teach older residents to make video calls",
            "Volunteers from the Merrow Point computer club have taught more than two hundred older residents to make video calls.",
            "The first call to a grandchild is always the best moment.",
            "Derek Mallory",
            "the club's secretary",
        ),
        (
            "Drones carry medicine to the islands",
            "Drones have begun carrying prescriptions from the hospital pharmacy to the two inhabited islands in the bay, cutting delivery time from a day to half an hour.",
            "The ferry does not run in bad weather, but the drone usually can.",
            "Dr. Paul Renner",
            "the hospital's chief information officer",
        ),
        (
            "Translation tool for exporters handles Chinese and English",
            "Quayside Labs has released a tool that translates product descriptions between Chinese and English for exporters at the port.",
            "Tea and porcelain dealers were our first customers.",
            "Aiko Tanaka",
            "co-founder of Quayside Labs",
        ),
    ],
    "culture": [
        (
            "Tea fair brings spring harvest to the market hall",
            "The spring tea fair filled the market hall on Saturday with growers and importers offering the first teas of the season, including Longjing from the hills around West Lake.",
            "The first picking, before the Qingming festival, is the most prized.",
            "Mei Chen",
            "of Lantern Tea",
        ),
        (
            "Maritime museum reopens after renovation",
            "The maritime museum has reopened after an eighteen-month renovation with a new gallery about the people who built ships in Port Alder.",
            "We wanted to tell the story of the workers, not just the ships.",
            "Dr. Ines Moreau",
            "the museum's curator",
        ),
        (
            "Folk festival returns to the harbour",
            "The harbour folk festival returns this weekend with forty bands playing on three stages along the quay.",
            "Half the bands started out playing in the pubs on this quay.",
            "Callum Reid",
            "the festival director",
        ),
        (
            "Local poet wins national prize",
            "Port Alder poet Esther Nwosu has won the national poetry prize for Salt Roads, a collection about her grandmother's journey across the sea.",
            "I wrote most of it on the ferry.",
            "Esther Nwosu",
            "the poet",
        ),
        (
            "Theatre stages a play about the shipyard strike",
            "The Lyric Theatre has staged a new play about the shipyard strike of 1972, with former shipyard workers in the audience on opening night.",
            "Some of them knew every line before we did.",
            "Hannah Moss",
            "the play's director",
        ),
        (
            "Lantern procession lights up the old town",
            "Thousands of people followed a procession of paper lanterns through the old town on Saturday to mark the Lantern Festival.",
            "We made the lanterns in workshops over six weekends.",
            "Li Wei",
            "of the Port Alder Chinese Association",
        ),
        (
            "Orchestra plays its first concert in the rebuilt hall",
            "The city orchestra played its first concert in the rebuilt Harbour Hall, where the acoustics were designed with the help of computer models.",
            "You can hear a violinist breathe from the back row.",
            "Anna Kowalski",
            "the orchestra's conductor",
        ),
        (
            "Street art trail maps murals across the city",
            "A new walking trail links thirty-two murals painted on the walls of warehouses and shops across the city.",
            "Every wall on the trail tells a story about the street it stands on.",
            "Jamal Brooks",
            "one of the artists",
        ),
        (
            "Film about the harbour ferries premieres",
            "A documentary about the crews of the harbour ferries premiered at the Regent cinema to a full house.",
            "We spent a year on the boats, in every kind of weather.",
            "Sara Lindgren",
            "the director",
        ),
        (
            "Dragon boat race draws crews from across the region",
            "Twenty-four crews raced dragon boats on the river on Sunday in the city's fifth Dragon Boat Festival race.",
            "The drummer sets the pace, and the whole boat has to listen.",
            "Li Wei",
            "of the Port Alder Chinese Association",
        ),
        (
            "Library exhibition shows old maps of the coast",
            "An exhibition of maps of the coast from the sixteenth century to the present has opened at the central library.",
            "You can watch the harbour grow from a fishing village to a city.",
            "Ruth Abernathy",
            "the head librarian",
        ),
        (
            "Cookery school teaches the food of the harbour",
            "A cookery school on the fish quay is teaching residents to cook the catch of the day, from herring to mackerel.",
            "Fresh fish needs very little done to it.",
            "Nora Quinn",
            "who runs the school",
        ),
        (
            "Dockers' choir celebrates its centenary",
            "The Dockers' Choir, founded by port workers in 1924, celebrated its hundredth year with a concert in the cathedral.",
            "My grandfather sang in the first concert, and I sang in this one.",
            "Gareth Lloyd",
            "the choir's longest-serving member",
        ),
    ],
    "sports": [
        (
            "Alder Rovers win the county cup in extra time",
            "Alder Rovers won the county cup on Saturday, beating Westholm 2-1 with a goal in the last minute of extra time.",
            "I have never been prouder of a group of players.",
            "Danny Moore",
            "the Rovers manager",
        ),
        (
            "Harbour swim raises money for the lifeboat",
            "More than three hundred swimmers crossed the harbour on Sunday, raising 48,000 dollars for the lifeboat station.",
            "That money keeps a boat ready to launch at any hour.",
            "Martin Sharpe",
            "coxswain of the lifeboat",
        ),
        (
            "Rowing club wins the estuary regatta",
            "Port Alder Rowing Club won five of the eight races at the estuary regatta, including the men's and women's eights.",
            "We trained through the winter on a river that was often half frozen.",
            "Ben Hughes",
            "the club captain",
        ),
        (
            "City marathon route changes to avoid the bridge",
            "The city marathon will follow a new route this year, avoiding the Alder Street bridge while it is repaired.",
            "The new route is flatter, so expect some fast times.",
            "Rachel Kim",
            "the race director",
        ),
        (
            "Teenage sailor completes a solo crossing of the bay",
            "Seventeen-year-old Maya Lund sailed into the harbour on Wednesday after crossing the bay alone in a boat she restored herself.",
            "The hardest part was the second night, when the wind dropped completely.",
            "Maya Lund",
            "the sailor",
        ),
        (
            "Basketball team promoted to the national league",
            "The Port Alder Gulls will play in the national basketball league next season after winning the regional play-off final.",
            "This team has worked for five years to get here.",
            "Marcus Reed",
            "the team's coach",
        ),
        (
            "Climbing centre opens in the old gasworks",
            "A climbing centre with walls fifteen metres high has opened inside the old gasworks.",
            "The gasholder frame makes the best climbing wall in the country.",
            "Tess Morgan",
            "who runs the centre",
        ),
        (
            "Volunteers restore the cricket club's pavilion",
            "Volunteers have spent two winters restoring the 1890s pavilion at the cricket ground.",
            "Every board we replaced was cut by hand to match the old ones.",
            "Alan Pryce",
            "the club's chairman",
        ),
        (
            "Rovers sign the Westholm striker who beat them",
            "Alder Rovers have signed the Westholm striker Jonah Bakare, who scored against them in the cup final.",
            "If you cannot stop him, sign him.",
            "Danny Moore",
            "the Rovers manager",
        ),
        (
            "Park run celebrates its five hundredth event",
            "The Saturday park run round the harbour park held its five hundredth event, with more than eight hundred runners.",
            "Some people walk it and some people race it, and everyone is welcome.",
            "Rachel Kim",
            "the volunteer organiser",
        ),
        (
            "Women's football team sets an attendance record",
            "A record crowd of 5,300 watched Alder Rovers Women beat Northbridge 3-0 at the harbour ground.",
            "The noise when we scored the first goal was unbelievable.",
            "Ellie Grant",
            "the team captain",
        ),
        (
            "Kayakers paddle the length of the river for charity",
            "Four kayakers have paddled the whole length of the Alder river, 140 kilometres from its source to the sea, for the hospital charity.",
            "The first day in the hills was all rocks and shallow water.",
            "Tom Reilly",
            "one of the kayakers",
        ),
        (
            "Chess club hosts the county championship",
            "The Merrow Point chess club hosted the county championship, won by a fifteen-year-old from the city's east side.",
            "She played the strongest chess of the weekend, and she was the youngest player in the room.",
            "Victor Szabo",
            "the tournament director",
        ),
    ],
}

#: headline -> fixed date, for stories other sites link to.
FIXED: dict[str, str] = {
    "Kestrel 2.6 speeds up JSON encoding": "2024-05-21",
    "Tea fair brings spring harvest to the market hall": "2024-04-18",
    "Appeal launched to restore the Merrow Point Light": "2024-02-06",
}

#: headline -> ``[(text before, anchor, site, path)]`` links to other sites.
LINKS: dict[str, list[tuple[str, str, str, str]]] = {
    "Kestrel 2.6 speeds up JSON encoding": [
        ("The changes are described in", "the JSON encoder documentation", "docs", paths.DOCS_JSON),
        ("Developers upgrading should read", "what's new in Kestrel 2.6", "docs", "/whatsnew/2.6.html"),
    ],
    "Tea fair brings spring harvest to the market hall": [
        ("Visitors who want to know more about the tea can read about", "西湖龙井茶", "zh", paths.ZH_LONGJING),
        ("The fair's tasting tables were run by", "the harbour tea room", "wiki", paths.WIKI_TEA_ROOM),
    ],
    "Appeal launched to restore the Merrow Point Light": [
        ("The history of the light is told on", "the Merrow Point community wiki", "wiki", paths.WIKI_LIGHT),
    ],
    "Tea importer celebrates fifty years on the quay": [
        ("The company's first tea came from", "杭州", "zh", paths.ZH_HANGZHOU),
    ],
    "Volunteers teach older residents to make video calls": [
        ("The sessions are organised by", "the Merrow Point computer club", "wiki", paths.WIKI_COMPUTER_CLUB),
    ],
    "Lantern procession lights up the old town": [
        ("The festival's traditions are described on", "元宵节", "zh", "/jieri/元宵节.html"),
    ],
    "Search engine course fills up in a day": [
        ("Students will practise on", "the Kestrel documentation", "docs", "/"),
    ],
}

#: Sentences that fit any story of their section.
BACKGROUND: dict[str, list[str]] = {
    "city": [
        "Port Alder's council has argued about transport spending for most of the past decade, and every vote on roads or rails draws a crowd.",
        "The city has grown along both banks of the Alder, and its oldest streets still follow the lines of the medieval quays.",
        "Council budgets have been tight since the shipyards closed, and projects are often delayed by a year or more.",
        "Residents' associations in the older neighbourhoods are among the most active in the country.",
        "The harbour remains the heart of the city, even though far fewer people work there than a generation ago.",
    ],
    "business": [
        "The port has been the city's biggest employer since the nineteenth century, and businesses rise and fall with the traffic on the quays.",
        "Small firms make up nine in ten businesses in Port Alder, and most employ fewer than ten people.",
        "Shops on the high street have struggled as more people buy online, although independent traders have done better than chains.",
        "The closure of the shipyards in the 1980s left a gap in the local economy that took decades to fill.",
        "The Chamber of Commerce says confidence among local firms is at its highest level for five years.",
    ],
    "science": [
        "Port Alder University's marine station, founded in 1903, is one of the oldest in the country.",
        "The estuary where the Alder meets the sea mixes fresh and salt water, which makes it unusually rich in wildlife.",
        "Much of the region's science relies on volunteers, who count birds, record plants and measure rainfall in their own gardens.",
        "Research funding in the region has grown since the university opened its new laboratories on the north quay.",
        "Scientists stress that a single study is rarely the last word, and that results need to be repeated elsewhere.",
    ],
    "technology": [
        "Port Alder has a small but growing technology sector, centred on the converted warehouses of the north quay.",
        "The city council has promised to put more of its services online while keeping offices open for people who prefer to visit.",
        "Many of the city's software companies were founded by graduates of the university's computing department.",
        "Broadband in the city centre is among the fastest in the region, but some villages nearby are still poorly connected.",
        "Local developers meet once a month at the library for talks and to help beginners.",
    ],
    "culture": [
        "Port Alder has a long tradition of music, much of it carried in by the sailors and traders who passed through the harbour.",
        "The city's cultural life is spread across small venues, from church halls to converted warehouses.",
        "Communities from around the world have settled near the harbour, and their festivals have become part of the city's calendar.",
        "Arts funding from the council has fallen in recent years, and many events now rely on volunteers and donations.",
        "The old town, with its narrow lanes and merchants' houses, is the backdrop for many of the city's festivals.",
    ],
    "sports": [
        "Sport in Port Alder has always leaned towards the water, with rowing and sailing clubs older than the football club.",
        "Alder Rovers have played at the harbour ground since 1899 and draw crowds from across the county.",
        "The city's amateur clubs rely on volunteers who coach, drive minibuses and wash kit every week.",
        "The council has promised to refurbish the public pitches and pools, many of which date from the 1970s.",
        "Local clubs report that more women and girls are taking up sport than ever before.",
    ],
}

#: ``(name, role, quote)`` reactions that fit any story of their section.
REACTIONS: dict[str, list[tuple[str, str, str]]] = {
    "city": [
        (
            "Brian Kettle",
            "leader of the opposition on the council",
            "Residents will want to know what this means for their street, and the council must explain it clearly.",
        ),
        (
            "Joan Mercer",
            "who has lived in the city for sixty years",
            "This city changes slowly, but it does change, and that is worth remembering.",
        ),
        (
            "Samir Haddad",
            "of the Port Alder Bus Users Group",
            "We will be watching closely to see that the promises are kept.",
        ),
    ],
    "business": [
        (
            "Ruth Calloway",
            "president of the Port Alder Chamber of Commerce",
            "Every business in the city feels it when something like this happens.",
        ),
        (
            "Declan Hurst",
            "an economist at Port Alder University",
            "One year's figures do not make a trend, but this is worth watching.",
        ),
        (
            "Abdul Rahman",
            "who owns a shop on the high street",
            "Anything that brings people into the city centre matters to all of us.",
        ),
    ],
    "science": [
        (
            "Prof. Marion Webb",
            "who chairs the regional science council",
            "This is careful work, and it deserves attention beyond the region.",
        ),
        (
            "Dr. Felix Navarro",
            "who was not involved in the research",
            "The results are interesting, but I would like to see more data before drawing conclusions.",
        ),
        (
            "Jenny Cole",
            "a volunteer recorder",
            "Volunteers collected a lot of this data, and it is good to see it used.",
        ),
    ],
    "technology": [
        (
            "Priyanka Shah",
            "who organises the monthly developers' meetup",
            "It is good news for anyone who writes software in this city.",
        ),
        (
            "Tom Becker",
            "a security researcher",
            "The important question is what happens to the data, and who can see it.",
        ),
        (
            "Joan Mercer",
            "who has lived in the city for sixty years",
            "Not everyone has a smartphone, and nobody should be left behind.",
        ),
    ],
    "culture": [
        (
            "Gwen Tallis",
            "who chairs the Port Alder Arts Council",
            "It is exactly the kind of thing that makes people proud of this city.",
        ),
        (
            "Oliver Grant",
            "a critic for the Gazette",
            "Ambitious, generous and occasionally a little too long, but well worth the effort.",
        ),
        (
            "Joan Mercer",
            "who has lived in the city for sixty years",
            "I have not seen the old town this busy since I was a girl.",
        ),
    ],
    "sports": [
        (
            "Steve Barnes",
            "who has followed Alder Rovers for forty years",
            "Sport brings this city together like nothing else.",
        ),
        ("Lucy Harmon", "who coaches at the youth academy", "Young people see this and believe they can do it too."),
        (
            "Kate Doyle",
            "a volunteer at the harbour ground",
            "Every club in the city depends on volunteers, and they deserve the credit.",
        ),
    ],
}

REACTION_INTROS = [
    "Not everyone was convinced.",
    "Reaction in the city was mixed.",
    "Others took a longer view.",
    "The news was widely discussed.",
]

NEXT: dict[str, list[str]] = {
    "city": [
        "The council will publish a detailed timetable later this month.",
        "A public meeting will be held at the town hall, and residents can comment online until the end of the month.",
        "Officials said they would report on progress at the next full council meeting.",
        "The Gazette will follow the story as it develops.",
    ],
    "business": [
        "The company said it would publish its annual results in the autumn.",
        "Further announcements are expected after the Chamber of Commerce meets next month.",
        "Union representatives said they would meet the management next week.",
        "Analysts expect more detail when the quarterly figures are released.",
    ],
    "science": [
        "The results will be published in a peer-reviewed journal later this year.",
        "The team plans to repeat the measurements next year to see whether the pattern holds.",
        "The data will be made freely available so that other researchers can check the findings.",
        "Members of the public can join the next survey by signing up through the university.",
    ],
    "technology": [
        "A public demonstration is planned at the central library next month.",
        "The developers say an update with more features will follow early next year.",
        "Feedback can be sent to the project team, who promise to reply to every message.",
        "The Gazette will report on how the system performs over the coming months.",
    ],
    "culture": [
        "Tickets for the remaining dates are available from the box office on the quay.",
        "The organisers hope to make the event a regular part of the city's calendar.",
        "Admission is free, and related events continue until the end of the summer.",
        "Workshops for children will run every Saturday morning during the school holidays.",
    ],
    "sports": [
        "The next home fixture is on Saturday afternoon at the harbour ground.",
        "Entries for next year's event open in January.",
        "The club is looking for volunteers and new members of all ages.",
        "Full results are published on the organisers' website.",
    ],
}
