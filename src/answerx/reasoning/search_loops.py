"""Search agents as reasoning approaches: Search-R1, R1-Searcher, Search-o1, IRCoT, IterRetGen.

Each loop reads from a :class:`~answerx.retrieval.Retriever` (the embedded
:class:`~answerx.retrieval.Index`, or any object with ``search``/``search_many``)
and feeds what it finds back to the model:

``search_r1``
    The model writes ``<search> query </search>``; generation stops at the
    closing tag (a stop sequence where the provider takes one, else the reply is
    cut there); the top-k passages come back as ``<information>…</information>``.
    Done at ``<answer>…</answer>``. Queries are read as UltraRAG's tool reads them
    (a missing ``?`` added); a turn with neither is searched with "There is no
    query." as the tool does, or gets Search-R1's "My previous action is
    invalid…" nudge (``no_query="nudge"``, ``search_r1_invalid``).
``r1_searcher``
    ``<|begin_of_query|>…<|end_of_query|>``, passages between
    ``<|begin_of_documents|>`` and ``<|end_of_documents|>``; done at ``</answer>``
    or when a turn asks for nothing.
``search_o1``
    ``<|begin_search_query|>…<|end_search_query|>``; a separate
    reason-in-documents call (``search_o1_documents``) condenses the passages into
    ``**Final Information**``, inserted between ``<|begin_search_result|>`` and
    ``<|end_search_result|>``. A repeated query is not searched again, and searches
    stop at ``max_searches``; the answer is read from ``\\boxed{}``.
``ircot``
    Retrieve with the question, then with the first sentence of each new
    reasoning step; passages accumulate (at most ``max_passages``); done at "so
    the answer is", after ``max_steps`` sentences at most.
``iter_retgen``
    ``rounds`` rounds of retrieve (question + previous generation, as UltraRAG's
    tool; ``next_query="answer"``: + previous answer) → answer; the last round's
    answer is the prediction.

The model's turns are free text whatever the strategy: answers are read as the
``two_stage`` strategy reads them (the rules, then an LLM extraction only when
they are unsure). Every call counts toward the :class:`~answerx.agent.Budget`;
when it runs out, or a loop reaches its turn limit without an answer, one final
attempt is made (``answerx.agent.final``). The response's metadata holds the
search trace under ``search``: each step's query, the passage ids it returned
and the citation number of every passage seen (stable across steps).

Retrieval runs inside the step logic, between calls: the embedded index answers
in milliseconds. A slow retriever (a web API) blocks :meth:`aexecute`'s event
loop while it searches.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar, Final, Literal, TypeVar, Unpack

from pydantic import Field

from answerx.agent.search import (
    SearchO1Lists,
    format_passages,
    ircot_first_sentence,
    iter_retgen_query,
    merge_passages,
)
from answerx.agent.termination import Termination
from answerx.errors import ConfigError
from answerx.extraction.queries import (
    NO_HELPFUL_INFORMATION,
    NO_QUERY,
    extract_final_information,
    extract_query,
)
from answerx.reasoning.base import BaseReasoning
from answerx.reasoning.calls import Message, ReasoningManager
from answerx.reasoning.engine import Answer, GiveUp, Run, Steps
from answerx.reasoning.settings import ApproachOptions, ApproachSettings
from answerx.reasoning.steps import read_reply, text_step
from answerx.retrieval.base import Passage, Retriever

__all__ = [
    "IRCoT",
    "IRCoTSettings",
    "IterRetGen",
    "IterRetGenSettings",
    "R1Searcher",
    "SearchO1",
    "SearchO1Settings",
    "SearchR1",
    "SearchR1Settings",
    "SearchReasoning",
    "SearchSettings",
]

S = TypeVar("S", bound="SearchSettings")

#: The structured approach whose extraction model reads a search loop's reply when the
#: rules are unsure: a search trajectory is a chain of thought with retrieved text in it.
EXTRACTION_APPROACH: Final = "chain_of_thought"
_SO_THE_ANSWER = re.compile(r"so\s+the\s+answer\s+is", re.IGNORECASE)


class SearchSettings(ApproachSettings):
    """Settings every search loop takes."""

    top_k: int = Field(default=3, ge=1, le=50, description="Passages retrieved per search.")
    max_turns: int = Field(
        default=6, ge=1, le=50, description="Model turns before the final attempt."
    )
    use_stop: bool = Field(
        default=True,
        description="Stop generation at the closing query tag with a stop sequence (turn off "
        "for a provider that refuses one; the reply is then cut at the tag).",
    )


class SearchR1Settings(SearchSettings):
    """search_r1: what a turn with neither a query nor an answer gets."""

    no_query: Literal["search", "nudge"] = Field(
        default="search",
        description="search: retrieve with 'There is no query.', as UltraRAG's Search-R1 "
        "tool does; nudge: Search-R1's 'My previous action is invalid…' message instead.",
    )


class SearchO1Settings(SearchSettings):
    """search_o1: a limit on searches as well as on turns."""

    max_searches: int = Field(default=5, ge=1, le=50, description="Searches at most.")


class IRCoTSettings(SearchSettings):
    """ircot: one reasoning sentence per step, passages accumulate."""

    max_steps: int = Field(default=6, ge=1, le=50, description="Reasoning sentences at most.")
    max_passages: int = Field(default=15, ge=1, le=200, description="Passages kept at most.")


class IterRetGenSettings(SearchSettings):
    """iter_retgen: a fixed number of retrieve → generate rounds."""

    rounds: int = Field(default=3, ge=1, le=20, description="Retrieve → generate rounds.")
    next_query: Literal["generation", "answer"] = Field(
        default="generation",
        description="What follows the question in the next round's query: the previous "
        "round's generation, as UltraRAG's tool does (no extra call), or its answer, read "
        "as two_stage reads it (an LLM extraction call when the rules are unsure).",
    )


class SearchReasoning(BaseReasoning[S]):
    """A reasoning approach that searches a :class:`~answerx.retrieval.Retriever`.

    Built by :func:`answerx.reasoning.get_approach` with ``retriever=``; the other
    arguments are :class:`~answerx.reasoning.BaseReasoning`'s.
    """

    #: The query convention of the loop (a format of ``answerx.extraction.queries``).
    query_format: ClassVar[str] = ""
    # The structured models exist for the structured approaches only.
    extraction_approach: ClassVar[str | None] = EXTRACTION_APPROACH
    open_tag: ClassVar[str] = ""
    close_tag: ClassVar[str] = ""

    def __init__(
        self, manager: ReasoningManager, *, retriever: Retriever, **options: Unpack[ApproachOptions]
    ) -> None:
        if not isinstance(retriever, Retriever):
            raise ConfigError(
                f"retriever must have search(query, k) and search_many(queries, k), "
                f"got {type(retriever).__name__}"
            )
        super().__init__(manager, **options)
        self.retriever = retriever

    # ------------------------------------------------------------------ engine hooks
    def prepare(self, run: Run) -> None:
        run.extras["search"] = {"steps": [], "citations": {}}

    def cite(self, run: Run, passages: Sequence[Passage]) -> str:
        """``[n] text`` lines, ``n`` the passage's citation number in the trace."""
        numbers = run.extras["search"]["citations"]
        return "\n".join(f"[{numbers[p.id]}] {p.contents}" for p in passages)

    # ------------------------------------------------------------------ shared steps
    def search(self, run: Run, query: str, step: int, k: int | None = None) -> list[Passage]:
        """Retrieve for ``query`` and record it in the run's search trace."""
        passages = self.retriever.search(query, k or self.settings.top_k)
        trace = run.extras["search"]
        for passage in passages:  # numbered in the order first seen, stable across steps
            trace["citations"].setdefault(passage.id, len(trace["citations"]) + 1)
        trace["steps"].append({"step": step, "query": query,
                               "passage_ids": [p.id for p in passages]})  # fmt: skip
        return passages

    def generate(self, run: Run, step: str) -> Steps[str]:
        """A turn of the conversation, stopped (or cut) at the closing query tag."""
        reply = yield from text_step(run, step, options=self._turn_options())
        turn = self._cut(reply)
        if turn != reply:  # conversation and transcript keep what a stop would have left
            run.conversation[-1] = {"role": "assistant", "content": turn}
            if run.transcript and run.transcript[-1] == (step, reply):
                run.transcript[-1] = (step, turn)
        return turn

    def answer(self, run: Run, reply: str) -> Steps[Answer]:
        """The answer of a reply, read as ``two_stage`` reads it."""
        return (yield from read_reply(replace(run, approach=EXTRACTION_APPROACH), reply))

    @staticmethod
    def step_limit(limit: str) -> GiveUp:
        """The loop's own limit is reached without an answer: the final attempt follows, as
        after a spent call budget (``metadata.step_limit`` names the limit)."""
        return GiveUp(Termination.EXCEED_CALLS, limit)

    def query_of(self, turn: str) -> str | None:
        """The query the turn asks for, in this loop's convention; None when none."""
        found = extract_query(turn, formats=[self.query_format])
        return found.query if found.found else None

    def _turn_options(self) -> Mapping[str, Any]:
        options = dict(self.settings.call_options())
        # The option that takes stop sequences is the SDK's (the manager passes options
        # through to it as they are); a manager without an adapter gets none.
        key = getattr(getattr(self.manager, "adapter", None), "stop_option", None)
        if self.settings.use_stop and key is not None and self.close_tag:
            options[key] = [self.close_tag]
        return options

    def _cut(self, reply: str) -> str:
        """The reply up to its first closing query tag (what a stop sequence gives), and
        with the tag restored where the stop sequence removed it."""
        if not self.close_tag:
            return reply
        end = reply.find(self.close_tag)
        answer_end = reply.find("</answer>")
        if end >= 0 and (answer_end < 0 or end < answer_end):
            return reply[: end + len(self.close_tag)]
        opened = reply.rfind(self.open_tag)
        if opened >= 0 and answer_end < opened and self.close_tag not in reply[opened:]:
            # Stopped at the tag (the provider drops the stop string): close it.
            return reply.rstrip() + self.close_tag
        return reply


def _user(content: str) -> Message:
    return {"role": "user", "content": content}


class SearchR1(SearchReasoning[SearchR1Settings]):
    """``search_r1`` (Search-R1): the model searches with ``<search>`` tags until it answers.

    Stages, one conversation: each turn is a free-text call stopped at ``</search>``; a
    query is read as UltraRAG's Search-R1 tool reads it (the last ``<search>``, a missing
    ``?`` added) and gets the top-k passages back as ``<information>…</information>``; a
    turn with ``<answer>…</answer>`` ends the loop and is read as ``two_stage`` reads a
    reply (the rules, then an LLM extraction call only when they are unsure). A turn with
    neither is counted in ``invalid_turns`` and, as in the tool, searched with "There is
    no query." (``no_query="nudge"``: Search-R1's "My previous action is invalid…"
    message instead). Metadata: ``search`` (each step's query, passage ids and
    citation numbers).

    Budget: every call (each model turn, and an extraction call when the rules are
    unsure) counts toward the :class:`~answerx.agent.Budget`; retrieval does not. When
    the budget does not allow the next call, or the loop reaches its own limit
    (``max_turns``) without an answer, one final attempt answers from the conversation so
    far (``metadata.stage == "final_attempt"``; ``step_limit`` names the loop's limit);
    when that finds nothing, :class:`~answerx.agent.StepLimitReached` (or a response
    saying why, with ``result_mode=True``).
    """

    name: ClassVar[str] = "search_r1"
    description: ClassVar[str] = (
        "Search-R1: <search> queries, <information> passages, <answer> (needs --index)."
    )
    settings_model = SearchR1Settings
    query_format = "search_r1"
    open_tag = "<search>"
    close_tag = "</search>"

    def steps(self, run: Run) -> Steps[Answer | GiveUp]:
        run.begin(run.prompts.user("search_r1"))
        for turn_number in range(1, self.settings.max_turns + 1):
            turn = yield from self.generate(run, f"turn {turn_number}")
            if "</answer>" in turn:
                return (yield from self.answer(run, turn))
            found = extract_query(
                turn, formats=[self.query_format], default=NO_QUERY, complete_question=True
            )
            if not found.found:
                run.extras["invalid_turns"] = run.extras.get("invalid_turns", 0) + 1
                if self.settings.no_query == "nudge":
                    run.say(run.prompts.user("search_r1_invalid"))
                    continue
            passages = self.search(run, found.query or NO_QUERY, turn_number)
            run.say(_user(f"<information>{format_passages(passages)}</information>"))
        return self.step_limit("max_turns")


class R1Searcher(SearchReasoning[SearchSettings]):
    """``r1_searcher`` (R1-Searcher): keyword queries between ``<|begin_of_query|>`` tags.

    Stages, one conversation: each turn is a free-text call stopped at
    ``<|end_of_query|>``; a query gets the top-k passages back between
    ``<|begin_of_documents|>`` and ``<|end_of_documents|>``; a turn that asks for nothing
    or holds ``</answer>`` ends the loop and is read as ``two_stage`` reads a reply.
    Metadata: ``search``.

    Budget: every call (each model turn, and an extraction call when the rules are
    unsure) counts toward the :class:`~answerx.agent.Budget`; retrieval does not. When
    the budget does not allow the next call, or the loop reaches its own limit
    (``max_turns``) without an answer, one final attempt answers from the conversation so
    far (``metadata.stage == "final_attempt"``; ``step_limit`` names the loop's limit);
    when that finds nothing, :class:`~answerx.agent.StepLimitReached` (or a response
    saying why, with ``result_mode=True``).
    """

    name: ClassVar[str] = "r1_searcher"
    description: ClassVar[str] = (
        "R1-Searcher: <|begin_of_query|> keywords, <|begin_of_documents|> passages (needs --index)."
    )
    settings_model = SearchSettings
    query_format = "r1_searcher"
    open_tag = "<|begin_of_query|>"
    close_tag = "<|end_of_query|>"

    def steps(self, run: Run) -> Steps[Answer | GiveUp]:
        run.begin(run.prompts.user("r1_searcher"))
        for turn_number in range(1, self.settings.max_turns + 1):
            turn = yield from self.generate(run, f"turn {turn_number}")
            query = self.query_of(turn)
            if query is None or "</answer>" in turn:
                return (yield from self.answer(run, turn))
            passages = self.search(run, query, turn_number)
            documents = "\n".join(p.contents for p in passages)
            run.say(_user(f"<|begin_of_documents|>\n{documents}\n<|end_of_documents|>"))
        return self.step_limit("max_turns")


class SearchO1(SearchReasoning[SearchO1Settings]):
    """``search_o1`` (Search-o1): searches whose passages are condensed before they return.

    Stages: each turn is a free-text call stopped at ``<|end_search_query|>``; a new query
    is searched, and a separate reason-in-documents call (outside the conversation)
    condenses the passages into ``**Final Information**``, which goes back between
    ``<|begin_search_result|>`` and ``<|end_search_result|>``. A repeated query is not
    searched again, and searches stop at ``max_searches``. A turn without a query ends
    the loop; its answer (``\\boxed{}``) is read as ``two_stage`` reads a reply.
    Metadata: ``search`` and ``search_o1`` (the running lists of queries, reasoning and
    information).

    Budget: every call (each model turn and reason-in-documents call, and an extraction
    call when the rules are unsure) counts toward the :class:`~answerx.agent.Budget`;
    retrieval does not. When the budget does not allow the next call, or the loop
    reaches its own limit (``max_turns``) without an answer, one final attempt answers
    from the conversation so far (``metadata.stage == "final_attempt"``; ``step_limit``
    names the loop's limit); when that finds nothing, it raises
    :class:`~answerx.agent.StepLimitReached` (or returns a response saying why, with
    ``result_mode=True``).
    """

    name: ClassVar[str] = "search_o1"
    description: ClassVar[str] = (
        "Search-o1: queries, reason-in-documents condensing, \\boxed{} answer (needs --index)."
    )
    settings_model = SearchO1Settings
    query_format = "search_o1"
    open_tag = "<|begin_search_query|>"
    close_tag = "<|end_search_query|>"

    def steps(self, run: Run) -> Steps[Answer | GiveUp]:
        lists = SearchO1Lists()
        run.begin(run.prompts.user("search_o1", max_searches=self.settings.max_searches))
        searches = 0
        for turn_number in range(1, self.settings.max_turns + 1):
            turn = yield from self.generate(run, f"turn {turn_number}")
            found = extract_query(turn, formats=[self.query_format])
            if not found.found or found.query is None:
                run.extras["search_o1"] = _lists_dump(lists)
                return (yield from self.answer(run, turn))
            query = found.query
            lists.reasoning.add(found.reasoning)
            if query in lists.queries:
                result = "You have searched this query already. Use the earlier results."
            elif searches >= self.settings.max_searches:
                result = "The search limit is reached: you may not search again. Answer now."
            else:
                searches += 1
                lists.queries.add(query)
                passages = self.search(run, query, turn_number)
                result = yield from self._reason_in_documents(run, lists, query, passages)
                lists.information.add(result)
            run.say(_user(f"<|begin_search_result|>{result}<|end_search_result|>"))
        run.extras["search_o1"] = _lists_dump(lists)
        return self.step_limit("max_turns")

    def _reason_in_documents(
        self, run: Run, lists: SearchO1Lists, query: str, passages: list[Passage]
    ) -> Steps[str]:
        reasoning = lists.reasoning.entries
        previous = "\n\n".join(f"Step {i}: {text}" for i, text in enumerate(reasoning, 1))
        documents = format_passages(passages) or NO_HELPFUL_INFORMATION
        prompt = run.prompts.user(
            "search_o1_documents", previous_reasoning=previous or "(none yet)",
            search_query=query, documents=documents,
        )  # fmt: skip
        # Not part of the conversation: only its Final Information goes back.
        reply = yield from text_step(run, "reason in documents", [prompt], run.options)
        info = extract_final_information(reply, default=NO_HELPFUL_INFORMATION).query
        return info or NO_HELPFUL_INFORMATION


def _lists_dump(lists: SearchO1Lists) -> dict[str, list[str]]:
    return {"queries": lists.queries.entries, "reasoning": lists.reasoning.entries,
            "information": lists.information.entries}  # fmt: skip


class IRCoT(SearchReasoning[IRCoTSettings]):
    """``ircot`` (IRCoT): retrieval interleaved with chain-of-thought, one sentence at a time.

    Stages: retrieve with the question; then each step is a free-text call that sees the
    passages so far and the reasoning so far, of whose reply only the first sentence is
    kept; that sentence is the next query, and its passages join the others (at most
    ``max_passages``). A reply saying "so the answer is" ends the loop, and the
    reasoning is read as ``two_stage`` reads a reply. Metadata: ``search``,
    ``reasoning``.

    Budget: every call (each model turn, and an extraction call when the rules are
    unsure) counts toward the :class:`~answerx.agent.Budget`; retrieval does not. When
    the budget does not allow the next call, or the loop reaches its own limit
    (``max_steps``) without an answer, one final attempt answers from the conversation so
    far (``metadata.stage == "final_attempt"``; ``step_limit`` names the loop's limit);
    when that finds nothing, :class:`~answerx.agent.StepLimitReached` (or a response
    saying why, with ``result_mode=True``).
    """

    name: ClassVar[str] = "ircot"
    description: ClassVar[str] = (
        "IRCoT: retrieve with each new reasoning sentence, passages accumulate (needs --index)."
    )
    settings_model = IRCoTSettings

    def steps(self, run: Run) -> Steps[Answer | GiveUp]:
        passages = self.search(run, run.question, 0)
        sentences: list[str] = []
        for step in range(1, self.settings.max_steps + 1):
            cited = self.cite(run, passages) or "(none found)"
            prompt = run.prompts.user(
                "ircot", passages=cited, reasoning=" ".join(sentences) or "(none yet)"
            )
            run.begin(prompt)
            reply = yield from text_step(run, f"step {step}")
            sentence = ircot_first_sentence(reply)
            if sentence:
                sentences.append(sentence)
            run.extras["reasoning"] = " ".join(sentences)
            if _SO_THE_ANSWER.search(reply):
                # The answer sentence may run past the first terminator ("is: 3.5").
                if not _SO_THE_ANSWER.search(sentence):
                    sentences[-1:] = [reply.strip()]
                return (yield from self.answer(run, " ".join(sentences)))
            if sentence:
                found = self.search(run, sentence, step)
                passages = merge_passages(passages, found, limit=self.settings.max_passages)
        return self.step_limit("max_steps")


class IterRetGen(SearchReasoning[IterRetGenSettings]):
    """``iter_retgen`` (Iter-RetGen): rounds of retrieve, then generate.

    Stages: ``rounds`` rounds, each retrieving with the question plus the previous
    round's generation (as UltraRAG's tool builds the next query: ``f"{q} {ans}"``), then
    one free-text call that answers from those passages; the last round's reply is read
    as ``two_stage`` reads a reply and is the prediction. ``next_query="answer"`` builds
    the query from the previous round's answer instead, read the ``two_stage`` way in
    every round. Metadata: ``search``.

    Budget: ``rounds`` calls (plus an extraction call when the rules are unsure of the
    last reply, or with ``next_query="answer"`` of any round's); retrieval does not
    count. When the budget does not allow the next call, one final attempt answers from
    the conversation so far (``metadata.stage == "final_attempt"``); when that finds
    nothing, :class:`~answerx.agent.StepLimitReached` (or a response saying why, with
    ``result_mode=True``).
    """

    name: ClassVar[str] = "iter_retgen"
    description: ClassVar[str] = (
        "IterRetGen: rounds of retrieve (question + last generation) then answer (needs --index)."
    )
    settings_model = IterRetGenSettings

    def steps(self, run: Run) -> Steps[Answer | GiveUp]:
        previous: str | None = None
        rounds = self.settings.rounds
        for round_ in range(1, rounds + 1):
            passages = self.search(run, iter_retgen_query(run.question, previous), round_)
            cited = self.cite(run, passages) or "(none found)"
            run.begin(run.prompts.user("iter_retgen", passages=cited))
            reply = yield from text_step(run, f"round {round_}")
            if round_ == rounds:
                return (yield from self.answer(run, reply))
            if self.settings.next_query == "answer":
                previous = (yield from self.answer(run, reply)).extraction.answer
            else:
                previous = reply
        raise AssertionError("rounds >= 1")  # pragma: no cover - the settings model says so
