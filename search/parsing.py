"""From what a user types to a Whoosh query, at three levels of strictness.

Whoosh's :class:`~whoosh.qparser.MultifieldParser` reads the syntax
(``"phrases"``, ``OR``, ``NOT``, ``-word``, ``site:``, ``title:``); ours are
a hyphen that negates only at the start of a word (``in-memory database``
asks for both words, ``tide -harbour`` excludes harbour), and words
rewritten by level (``strict``, ``parts``, ``any``) before they are spread
over the fields, so that every level matches across fields. The engine asks
for ``strict`` first and relaxes only while too few pages match
(:mod:`search.candidates`). Design: ARCHITECTURE.md, "Search", the levels
of a query.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from whoosh.fields import TEXT
from whoosh.qparser import MultifieldParser, OrGroup, syntax
from whoosh.qparser.plugins import EveryPlugin, PhrasePlugin, Plugin, PlusMinusPlugin, RangePlugin, WildcardPlugin
from whoosh.query import And, NullQuery, Or, Query, Term

from indexer.analysis import code_parts, joined

__all__ = ["LEVELS", "STRICT", "PARTS", "ANY", "QueryParser", "word_forms"]

STRICT, PARTS, ANY = "strict", "parts", "any"
LEVELS = (STRICT, PARTS, ANY)

# Only at the start of a word does + require and - exclude ("--verbose" is
# an option's name, not "-verbose" excluded).
_PLUS = r"(?<![^\s(])\+(?=[\w\"(])"
_MINUS = r"(?<![^\s(])-(?=[\w\"(])"
_WORD = re.compile(r"[^\W_](?:[\w.:-]*\w)?")
_COMPONENTS = re.compile(r"\.|::?")
# A word no plugin of the parser looks at twice: letters and digits only,
# not an operator.
_LETTERS = re.compile(r"[^\W_]+")
_OPERATOR_WORDS = frozenset(["AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"])
# Operators read as the words they are, when they are left with nothing to join.
_OPERATORS_AS_WORDS = re.compile(r"\b(?:AND|OR|NOT|ANDNOT|ANDMAYBE)\b")
_SYNTAX = re.compile(r'["()+\-:^~*?\[\]{}]')


def word_forms(text: str) -> tuple[str, list[str], list[str]]:
    """``(kind, parts, finer)`` of a query word: how each level rewrites it.

    ``kind`` is ``"hyphen"``, ``"code"`` or ``"plain"``. For a hyphenated
    word, ``parts`` are its pieces; for a dotted name, its components; for
    a lone code name, its parts; ``finer`` are every component's parts.

    >>> word_forms("in-memory")
    ('hyphen', ['in', 'memory'], ['in', 'memory'])
    >>> kind, parts, finer = word_forms("django.db.models.QuerySet.select_related()")
    >>> kind, parts
    ('code', ['django', 'db', 'models', 'QuerySet', 'select_related'])
    >>> finer
    ['django', 'db', 'models', 'Query', 'Set', 'select', 'related']
    >>> word_forms("JSONEncoder"), word_forms("lighthouse")
    (('code', ['JSON', 'Encoder'], ['JSON', 'Encoder']), ('plain', ['lighthouse'], ['lighthouse']))
    """
    match = _WORD.search(text)
    if match is None or len(_WORD.findall(text)) != 1:
        return "plain", [text], [text]
    word = match.group()
    return _hyphen_forms(word) if "-" in word else _code_forms(word)


def _hyphen_forms(word: str) -> tuple[str, list[str], list[str]]:
    """:func:`word_forms` of a word with a hyphen: its pieces (plain when only one is left)."""
    pieces = [piece for piece in word.split("-") if piece]
    finer = [part for piece in pieces for part in _finest(piece)]
    return ("hyphen", pieces, finer) if len(pieces) > 1 else ("plain", [word], [word])


def _code_forms(word: str) -> tuple[str, list[str], list[str]]:
    """:func:`word_forms` of a word without a hyphen: a dotted name's
    components, a lone code name's parts, or the plain word."""
    components = [c for c in _COMPONENTS.split(word) if c]
    finer = [part for component in components for part in _finest(component)]
    if len(components) > 1:
        return "code", components, finer
    return ("code", finer, finer) if len(finer) > 1 else ("plain", [word], [word])


def _finest(component: str) -> list[str]:
    return [part for piece in component.split("_") if piece for part in code_parts(piece)]


class _WordForms(Plugin):
    """Rewrites each word node by the parser's level, before the multifield
    plugin spreads words over fields (its priority is 110)."""

    def __init__(self, schema: Any, level: str) -> None:
        self.schema = schema
        self.level = level
        text_fields = [name for name in schema.names() if isinstance(schema[name], TEXT)]
        analyzer = schema[text_fields[0]].analyzer
        self._analyzer = lambda word: [token.text for token in analyzer(word)]
        # Whether the thread's last parse met a word this level rewrites (not a plain word).
        self._last = threading.local()

    @property
    def rewrote(self) -> bool:
        return getattr(self._last, "rewrote", False)

    @rewrote.setter
    def rewrote(self, value: bool) -> None:
        self._last.rewrote = value

    def filters(self, parser: Any) -> list[tuple[Any, int]]:
        return [(self._rewrite, 105), (self._unphrase, 111)]

    def _unphrase(self, parser: Any, group: Any) -> Any:
        """A phrase in a field without positions (spread there by the
        multifield plugin) becomes its words, all required in that field."""
        for index, node in enumerate(group):
            if isinstance(node, syntax.GroupNode):
                group[index] = self._unphrase(parser, node)
            elif isinstance(node, PhrasePlugin.PhraseNode) and not self._positional(node.fieldname):
                words = [self._word(node, word) for word in node.text.split()]
                group[index] = words[0] if len(words) == 1 else syntax.AndGroup(words)  # "": none
        return group

    def _positional(self, name: str | None) -> bool:
        field = self.schema[name] if name and name in self.schema else None
        return field is not None and field.format is not None and field.format.supports("positions")

    def _rewrite(self, parser: Any, group: Any) -> Any:
        for index, node in enumerate(group):
            if isinstance(node, syntax.GroupNode):
                group[index] = self._rewrite(parser, node)
            elif isinstance(node, syntax.WordNode) and self._text_field(node.fieldname):
                group[index] = self._forms(node)
            elif isinstance(node, PhrasePlugin.PhraseNode) and self._text_field(node.fieldname):
                # One word a position, as the index has them: a phrase of the
                # code names' and hyphenated words' finest parts.
                node.text = " ".join(
                    " ".join(forms[2]) if forms[0] != "plain" else word
                    for word in node.text.split()
                    for forms in [word_forms(word)]
                )
                # Stop words leave gaps in the index's positions ("support
                # the wheel"): let the phrase's words stand that far apart.
                stops = sum(1 for word in node.text.split() if not self._analyzer(word))
                node.slop = max(node.slop, 1 + stops)
        return group

    def _text_field(self, name: str | None) -> bool:
        return name is None or (name in self.schema and isinstance(self.schema[name], TEXT))

    def _forms(self, node: Any) -> Any:
        kind, parts, finer = word_forms(node.text)
        if kind == "plain":
            return node
        self.rewrote = True
        whole = joined("-".join(parts)) if kind == "hyphen" else None
        if self.level == STRICT:
            if kind == "code":
                # The name as written, which the index keeps whole, or its
                # components in a row (path.join inside os.path.join).
                if _COMPONENTS.search(node.text):
                    phrase = self._phrase(node, finer)
                    return self._group(syntax.OrGroup, node, [self._whole(node), phrase])
                return self._whole(node)
            phrase = self._phrase(node, finer)
            alternatives = [phrase, self._word(node, whole)] if whole else [phrase]
            return self._group(syntax.OrGroup, node, alternatives)
        if self.level == PARTS:
            every = self._group(syntax.AndGroup, node, [self._word(node, part) for part in parts])
            if kind == "code":
                # The whole name scores where it is written, but is not required.
                return self._group(syntax.AndMaybeGroup, node, [every, self._whole(node)])
            return self._group(syntax.OrGroup, node, [every, self._word(node, whole)]) if whole else every
        words = list(dict.fromkeys([*parts, *finer, *([whole] if whole else [])]))
        return self._group(syntax.OrGroup, node, [self._word(node, word) for word in words])

    def _phrase(self, node: Any, words: list[str]) -> Any:
        """``words`` in a row (stop words out), or the one word left."""
        kept = [word for word in words if self._analyzer(word)]
        if len(kept) < 2:
            return self._word(node, kept[0] if kept else node.text)
        phrase = PhrasePlugin.PhraseNode(" ".join(kept), node.startchar or 0)
        phrase.startchar, phrase.endchar = node.startchar, node.endchar
        phrase.set_fieldname(node.fieldname)
        return phrase

    @classmethod
    def _whole(cls, node: Any) -> Any:
        """The code name as one term, not analysed into its parts."""
        match = _WORD.search(node.text)
        word = cls._word(node, match.group() if match else node.text)
        word.tokenize = False
        return word

    @staticmethod
    def _word(node: Any, text: str | None) -> Any:
        word = syntax.WordNode(text or "")
        word.startchar, word.endchar = node.startchar, node.endchar
        word.set_fieldname(node.fieldname)
        return word

    @staticmethod
    def _group(cls: Any, node: Any, nodes: list[Any]) -> Any:
        return cls(nodes)


class QueryParser:
    """Parsers of one schema and field weights, one per level."""

    def __init__(self, schema: Any, fieldboosts: dict[str, float]) -> None:
        names = list(fieldboosts)
        self._schema = schema
        self._boosts = dict(fieldboosts)
        # Plain words are parsed without the parser when every field reads
        # a query's text its usual way (not by itself, tokens joined as words are).
        self._direct = all(
            not schema[name].self_parsing() and schema[name].multitoken_query == "default" for name in names
        )
        # The fields that analyse a query alike share their tokens.
        self._alike: dict[str, str] = {}
        for name in names:
            field = schema[name]
            self._alike[name] = next(
                (
                    other
                    for other in self._alike.values()
                    if type(schema[other]) is type(field) and schema[other].analyzer == field.analyzer
                ),
                name,
            )
        self._parsers: dict[str, MultifieldParser] = {}
        self._forms: dict[str, _WordForms] = {}
        self._last = threading.local()  # .plain: the thread's text last parsed strictly, if of plain words only
        for level in LEVELS:
            group = OrGroup if level == ANY else syntax.AndGroup
            parser = MultifieldParser(names, schema, fieldboosts=fieldboosts, group=group)
            # Not part of the syntax: `*` and `?` wildcards, `[a TO z]` ranges
            # and `*:*` expand to every term or document of a field (a query
            # of `*` took 30 s on 10,000 pages); here they are plain characters.
            for plugin in (WildcardPlugin, RangePlugin, EveryPlugin):
                parser.remove_plugin_class(plugin)
            parser.add_plugin(PlusMinusPlugin(_PLUS, _MINUS))
            self._forms[level] = _WordForms(schema, level)
            parser.add_plugin(self._forms[level])
            self._parsers[level] = parser

    def reweighted(self, fieldboosts: dict[str, float]) -> QueryParser:
        """A parser of the same schema with other field weights."""
        return QueryParser(self._schema, fieldboosts)

    def parse(self, text: str, level: str = STRICT) -> Query:
        words = text.split()
        if (
            self._direct
            and words
            and all(
                _LETTERS.fullmatch(word) and word not in _OPERATOR_WORDS and word_forms(word)[0] == "plain"
                for word in words
            )
        ):
            query = unions(self._plain(words, level))
            if level == STRICT:
                self._last.plain = text
            return query
        forms = self._forms[level]
        forms.rewrote = False
        query = unions(self._leniently(self._parsers[level], text))
        if level == STRICT:
            self._last.plain = "" if forms.rewrote else text
        return query

    @staticmethod
    def _leniently(parser: Any, text: str) -> Query:
        """Whoosh's query for ``text``; where its syntax tree breaks (an
        operator with nothing to apply to, ``NOT AND``, ``tea OR``; a ``+``
        inside a group), the query of the text with its operators read as
        words, else of its words alone: no query string raises."""
        try:
            return parser.parse(text)
        except (IndexError, AssertionError, NotImplementedError):
            pass
        try:
            return parser.parse(_OPERATORS_AS_WORDS.sub(lambda match: match.group(0).lower(), text))
        except (IndexError, AssertionError, NotImplementedError):
            return parser.parse(" ".join(_SYNTAX.sub(" ", text.lower()).split()) or "*")

    def _plain(self, words: list[str], level: str) -> Query:
        """What the level's parser makes of plain words (letters and digits,
        nothing to rewrite), built without it: each word in every field, an
        ``Or`` (a field's term for each of the word's tokens, joined as the
        level joins words), the words joined by ``And`` (``Or`` at ``any``),
        normalized. A tenth of the parser's time (0.7 ms a query), which
        goes to its plugins' passes over the text and the syntax tree;
        ``tests/search/test_parsing.py`` holds the two to the same queries."""
        group = Or if level == ANY else And
        schema = self._schema
        clauses = []
        for word in words:
            tokens: dict[str, list[str]] = {}
            fielded = []
            for name, boost in self._boosts.items():
                alike = self._alike[name]
                if alike not in tokens:
                    tokens[alike] = list(
                        schema[alike].process_text(word, mode="query", tokenize=True, removestops=True)
                    )
                texts = tokens[alike]
                if len(texts) == 1:
                    fielded.append(Term(name, texts[0], boost=boost))
                elif texts:
                    fielded.append(_normalized(group, [Term(name, token, boost=boost) for token in texts]))
            clauses.append(_normalized(Or, fielded))
        return _normalized(group, clauses) or NullQuery

    def same_at_parts(self, text: str) -> bool:
        """Whether ``text`` at the ``parts`` level is the query it was at
        ``strict``, as told by its strict parse, the last one (the levels
        differ only in how they rewrite hyphenated words and code names):
        a query of plain words need not be parsed again to find out.
        """
        return bool(text) and text == getattr(self._last, "plain", "")


def _normalized(group: Any, children: list[Any]) -> Query | None:
    """``group(children).normalize()`` of normalized terms and groups of
    no boost of their own (None: nothing), as Whoosh would make it without
    its copies: a child of the same kind merged into it, a child met again
    left out, a group of one its child, of none nothing.

    >>> _normalized(And, [Term("a", "x"), And([Term("a", "y"), Term("a", "x")]), None])
    And([Term('a', 'x'), Term('a', 'y')])
    >>> _normalized(Or, [None, Term("a", "x")]), _normalized(Or, [None])
    (Term('a', 'x'), None)
    """
    flat: list[Query] = []
    for child in children:
        if child is None:
            continue
        if type(child) is group:
            flat.extend(child.subqueries)
        else:
            flat.append(child)
    unique = list(dict.fromkeys(flat))
    if len(unique) > 1:
        return group(unique)
    return unique[0] if unique else None


class UnionOr(Or):
    """Whoosh's ``Or`` that always matches as a tree of unions. Whoosh picks
    a matcher that first loads every match into arrays (2,048 doubles
    allocated per ``Or``) when a segment holds at most 5,000 documents: an
    index in parts has many such segments, and a query of three words over
    seven fields has dozens of ``Or`` nodes (10,000 pages: 2 ms each, 60% of
    a query's time)."""

    matcher_type = Or.DEFAULT_MATCHER


def unions(query: Query) -> Query:
    """``query`` with each of its ``Or`` nodes a :class:`UnionOr` (in place)."""
    if type(query) is Or:
        query.__class__ = UnionOr
    for child in query.children():
        unions(child)
    return query
