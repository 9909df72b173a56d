"""The streaming audit: sources -> lines -> records -> verdicts -> report rows + tally.

Nothing here prints, and nothing here knows of processes: a runner
(:mod:`toolaudit.runners`) decides where an :class:`Audit` runs. An audit reads each
source a batch of lines at a time and chooses, line by line, which reader reads on:

- the typed reader (typed_reader.py), for runs of lines of a provider's format or of
  flat calls, decoded by msgspec: most lines of most logs;
- the inline reader (inline_reader.py), for flat calls when the typed path is off;
- the general reader (general_reader.py) for everything else: format detection,
  records' own tools, streams, malformed input.

Each reader writes what it finds into one :class:`~toolaudit.pipeline.recorder.Recorder`,
which owns the counts, the samples and the report rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, BinaryIO

from toolaudit.errors import InputError
from toolaudit.formats.flat import FLAT
from toolaudit.pipeline.fast_paths import FastPaths
from toolaudit.pipeline.general_reader import GeneralReader
from toolaudit.pipeline.inline_reader import InlineReader
from toolaudit.pipeline.options import AuditOptions
from toolaudit.pipeline.recorder import Recorder
from toolaudit.pipeline.rows import Row
from toolaudit.pipeline.stack import frames_for_a_batch
from toolaudit.pipeline.stop import StopRequest
from toolaudit.pipeline.toolsets import RecordTools
from toolaudit.results.summary import Summary
from toolaudit.schemas import NO_SCHEMAS, SchemaSet
from toolaudit.sources import DamagedInput, Source, expand_paths, read_line_batches

if TYPE_CHECKING:
    from toolaudit.pipeline.scoring import Scorer
    from toolaudit.truth.expectations import Expectations

__all__ = ["Audit", "AuditOptions", "Row"]


class Audit:
    """One audit, in this process, over some inputs against one schema set.

    Iterate it for the report rows (dicts), or call :meth:`run` to write them as
    JSONL; either way :attr:`summary` is set once the inputs are exhausted. It
    runs once: a second pass raises RuntimeError.
    """

    #: The inline reader of flat calls; tests turn it off to check it changes nothing.
    inline_fast_path = True
    #: The typed reader (see typed_reader.py); the same.
    typed_fast_path = True

    def __init__(
        self,
        inputs: Iterable[str | Source],
        schemas: SchemaSet = NO_SCHEMAS,
        options: AuditOptions | None = None,
        *,
        on_bytes: Callable[[int], object] | None = None,
        stdin: BinaryIO | None = None,
        stop: StopRequest | None = None,
        expectations: Expectations | None = None,
        whole_run: bool = True,
    ) -> None:
        self.sources = [s if isinstance(s, Source) else Source(s) for s in inputs]
        self.schemas = schemas
        self.options = options = options if options is not None else AuditOptions()
        #: Told how many bytes each read consumed (progress).
        self.on_bytes = on_bytes
        #: Shared with whoever may ask the audit to stop (a signal handler).
        self.stop = stop if stop is not None else StopRequest()
        self._stdin = stdin
        options.check_schemas(schemas)
        #: Scores the records against their expected calls (--expected), if given.
        self.scorer: Scorer | None = None
        if expectations is not None:  # imported only then: truth/ is start-up to spare
            from toolaudit.pipeline.scoring import Scorer

            self.scorer = Scorer(expectations)
        #: Not a part of a run (--jobs): the whole counts the entries no record had.
        self.whole_run = whole_run
        #: What the readers found, once the audit has started.
        self.recorder: Recorder | None = None
        self._general: GeneralReader | None = None
        #: The typed reader, and when it reads (set once the audit starts).
        self.fast_paths: FastPaths | None = None
        self.summary: Summary | None = None

    @classmethod
    def of_paths(
        cls,
        paths: Iterable[str],
        schemas: SchemaSet = NO_SCHEMAS,
        options: AuditOptions | None = None,
        *,
        storage_options: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Audit:
        """An audit of files, directories (walked), URLs (``storage_options`` for their
        filesystem) and ``-``; missing paths raise now."""
        sources = expand_paths(paths, storage_options=storage_options)
        return cls(sources, schemas, options, **kwargs)

    def request_stop(self, interruption: type[KeyboardInterrupt] = KeyboardInterrupt) -> None:
        """Stop the audit as Ctrl-C would, at the end of the batch being audited
        (see :class:`~toolaudit.pipeline.stop.StopRequest`)."""
        self.stop.request(interruption)

    @property
    def whole_reason(self) -> str | None:
        """Why these inputs cannot be cut into parts audited apart, if they cannot (see
        :attr:`GeneralReader.whole_reason`)."""
        return None if self._general is None else self._general.whole_reason

    def __iter__(self) -> Iterator[Row]:
        for rows in self._row_batches(want_rows=True):
            yield from rows

    def run(self, report: BinaryIO | None = None, scores: BinaryIO | None = None) -> Summary:
        """Audit everything; write the report rows to ``report`` (JSONL) if given, and
        with expected calls, a score line per expected entry to ``scores``.

        Interrupted (Ctrl-C, SIGTERM), the report keeps every complete row and
        :attr:`summary` says the audit is incomplete; the interruption goes on.
        """
        if self.scorer is not None:
            self.scorer.out = scores
        try:
            for rows in self._row_batches(want_rows=report is not None, encoded=True):
                if report is not None:
                    report.writelines(rows)
        except KeyboardInterrupt:
            self.finish(interrupted=True)  # interrupted while writing: the summary still says so
            raise
        assert self.summary is not None
        return self.summary

    def finish(self, *, interrupted: bool = False) -> Summary:
        """Set :attr:`summary` from what was counted (once; an interrupted run is incomplete)."""
        if self.summary is None:
            recorder = self.recorder or Recorder(self.options, want_rows=False)
            if self.scorer is not None:
                self.scorer.count_unscored(recorder.record_tallies())
            summary = recorder.summary(schemas_digest=self.schemas.digest, interrupted=interrupted)
            if self.scorer is not None and self.whole_run:
                summary = self.scorer.with_missing_entries(summary)
            self.summary = summary
        return self.summary

    def _row_batches(self, *, want_rows: bool, encoded: bool = False) -> Iterator[list[Any]]:
        """The report rows, a batch at a time (dicts, or JSON lines when ``encoded``);
        sets :attr:`summary` at the end.

        Interrupted, it still yields every complete row and sets a summary that
        says it is incomplete, then lets the interruption go on.
        """
        if self.recorder is not None:
            raise RuntimeError("an Audit runs once (its counts would add up twice): make a new one")
        options = self.options
        recorder = self.recorder = Recorder(options, want_rows=want_rows, encoded=encoded)
        record_tools = RecordTools(self.schemas, deep=options.deep)
        self.fast_paths = FastPaths(
            self.schemas,
            options,
            record_tools.compile,
            enabled=self.typed_fast_path,
            scorer=self.scorer,
        )
        self._general = GeneralReader(recorder, record_tools, options, self.fast_paths)
        self._general.scorer = self.scorer
        try:
            for source in self.sources:
                yield from self._audit_source(source)
        except KeyboardInterrupt:
            self.finish(interrupted=True)
            raise
        self.finish()

    def _plain_reader(self) -> GeneralReader | InlineReader:
        """The reader of the lines the typed reader does not read."""
        assert self.recorder is not None and self._general is not None
        assert self.fast_paths is not None
        validator = self.schemas.validator
        if (
            self.inline_fast_path
            and self.scorer is None
            and validator is not None
            and self.options.input_format in (None, FLAT.name)
        ):
            return InlineReader(
                self.recorder, validator, self._general, self.fast_paths, deep=self.options.deep
            )
        return self._general

    def _audit_source(self, source: Source) -> Iterator[list[Row]]:
        """Audit one source, yielding its rows a batch at a time."""
        recorder, general, fast_paths = self.recorder, self._general, self.fast_paths
        assert recorder is not None and general is not None and fast_paths is not None
        status = recorder.start_source(source.name)
        general.new_source()
        plain = self._plain_reader()
        stop = self.stop
        lineno = source.first_line - 1  # the last line read
        try:
            for lines in read_line_batches(
                source,
                max_line_bytes=self.options.max_line_bytes,
                on_bytes=self.on_bytes,
                stdin=self._stdin,
            ):
                stop.busy = True
                first, end, position = lineno + 1, len(lines), 0  # first: lines[0]'s number
                with frames_for_a_batch():  # the same rows in a process of --jobs
                    while position < end:
                        if fast_paths.ready and (typed := fast_paths.typed) is not None:
                            position = typed.read_lines(lines, position, first, recorder)
                            if position == end:
                                break
                        position = plain.read_lines(lines, position, first)
                lineno = first + end - 1
                recorder.end_batch()  # valid calls are counted per batch, in C
                stop.busy = False
                stop.raise_pending()
                if rows := recorder.take_rows():
                    yield rows
        except DamagedInput as damage:
            status.complete = False
            status.error = f"{damage}; reading stopped after line {lineno}"
        except InputError as error:
            status.complete = False
            status.error = str(error)
        except KeyboardInterrupt:  # (the streams still open are not judged: the run stops)
            stop.busy = False
            readers = (plain, general, fast_paths.typed)
            lineno = max(lineno, *(r.interrupted_at for r in readers if r is not None))
            status.complete = False
            status.error = f"interrupted after line {lineno}"
            recorder.end_source(status, lineno - (source.first_line - 1))
            if rows := recorder.take_rows():
                yield rows  # every complete row of the batch in progress
            raise
        general.end_source()
        recorder.end_source(status, lineno - (source.first_line - 1))
        if rows := recorder.take_rows():
            yield rows
