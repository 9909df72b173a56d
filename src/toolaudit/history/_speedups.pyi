"""The commonest histories' pairing, in C (``_speedups.c``; see toolaudit.history.fast);
the ``_json`` functions (``_speedups_json.c``) read the history from its JSON text."""

from collections.abc import Mapping
from typing import Literal, Protocol

from typing_extensions import Buffer

def know_tables(
    conversations: type, histories: type, outcomes: type, unanswered: str, no_model: str, /
) -> None:
    """The classes of the audit's tables (``toolaudit.results.conversations``), the code
    of a call left unanswered and the key of the histories of no model (the tables'
    ``table_key(None)``): given the tables and a model, a dict reader counts a
    history whose every call was answered and no result failed (or, ``left_too``, whose
    only problems are calls left unanswered) straight into them, as
    ``Conversations.count_all_answered`` (``count_results``) would, and answers True,
    where every entry it adds to is there already and its name is its own key (else it
    answers as without them)."""

def count_answered(
    tables: object,
    model: object,
    results: Mapping[str, int],
    left: list[tuple[object, ...]] = ...,
    /,
) -> bool:
    """A history whose every call was answered (or whose only problems are the calls
    ``left``, each with its name second) and no result failed, read elsewhere, its results
    per tool given, counted in ``tables`` as a dict reader counts one: True, or False where
    it cannot be (an entry not there yet, a name not its own key...)."""

class DictReader(Protocol):
    """A history's reader, given its messages (a list of dicts) and the name results of a
    tool without a usable name are counted under: the calls left unanswered, each (call
    id, name, message index, index in the message) (Gemini's with its part's field last),
    and the results per tool; or None, not sure. Given the audit's tables and a model too,
    True where it counted the history there (see :func:`know_tables`)."""

    def __call__(
        self,
        messages: list[object],
        no_name: str,
        tables: object = ...,
        model: object = ...,
        left_too: bool = ...,
        /,
    ) -> tuple[list[tuple[object, ...]], dict[str, int]] | Literal[True] | None: ...

chat: DictReader  #: OpenAI Chat
responses: DictReader  #: OpenAI Responses
anthropic: DictReader  #: Anthropic
bedrock: DictReader  #: Bedrock Converse
gemini: DictReader  #: Gemini
otel: DictReader  #: OpenTelemetry GenAI

class TextReader(Protocol):
    """A history's reader, given its JSON text (any buffer) and the name results of a
    tool without a usable name are counted under: what its dict function answers of
    ``orjson.loads(text)`` and the count of messages, or None. Given the audit's tables
    and a model too, True where every call was answered and it counted the history there
    as ``count_answered`` would (see :func:`know_tables`); tables None: not counted. Given
    a :func:`history_prefixes` too, a history that starts with the very bytes of one read
    before is read on from where that one ended (the same answer)."""

    def __call__(
        self,
        text: Buffer,
        no_name: str,
        tables: object = ...,
        model: object = ...,
        prefixes: object = ...,
        /,
    ) -> tuple[list[tuple[object, ...]], dict[str, int], int] | Literal[True] | None: ...

chat_json: TextReader  #: ``chat(orjson.loads(text), no_name)`` and the count of messages
responses_json: TextReader  #: ``responses(...)`` and the count of items
anthropic_json: TextReader  #: ``anthropic(...)`` and the count of messages
bedrock_json: TextReader  #: ``bedrock(...)`` and the count of messages
gemini_json: TextReader  #: ``gemini(...)`` and the count of contents
otel_json: TextReader  #: ``otel(...)`` and the count of messages

def history_prefixes(budget: int = ..., /) -> object:
    """A new cache of the histories the ``_json`` readers read (its texts held, at most
    ``budget`` bytes of them, 32 MB by default), for their fifth argument."""

def prefixes_held(prefixes: object, /) -> tuple[int, int, int]:
    """(histories kept, bytes of text held, histories read on from a prefix kept)."""

class PairHistories:
    """The conversation check of a pair's request (``_speedups_pairs.c``): ``check``
    answers what ``twin_check`` (``PythonHistories.check``) answers, the commonest requests
    read here (their shape told, their history read by the shape's text reader), the rest
    handed to the twin: ``twin_parsed`` where the reader is not sure, ``tools_shape`` for
    tools not seen on the line before, ``finish`` (``plainly_checked``) for calls left
    unanswered that are worded. ``shapes``: (shape, path, where) for each text reader, in
    the order chat, responses, anthropic, bedrock, gemini; ``prefixes``: the text readers'
    :func:`history_prefixes` (or None)."""

    def __init__(
        self,
        twin_check: object,
        twin_parsed: object,
        tools_shape: object,
        finish: object,
        unread: object,
        refused: type[BaseException],
        no_name: str,
        unset: object,
        shapes: tuple[tuple[str, str, str], ...],
        prefixes: object,
        /,
    ) -> None: ...
    def check(
        self,
        request: object,
        line: bytes,
        worded: bool = ...,
        tables: object = ...,
        model: object = ...,
    ) -> object: ...
