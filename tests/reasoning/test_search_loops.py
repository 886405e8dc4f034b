"""The search loops driven by scripted replies from the fake provider server: what each
request carried, what was retrieved, and how each loop ends."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from reasoning_script import FINAL_ATTEMPT, ScriptedModel, reported_usage

from answerx.agent import Budget, StepLimitReached
from answerx.errors import ConfigError
from answerx.reasoning import get_approach
from answerx.retrieval import Index, bundled_index
from answerx.structured import InstructorClientManager
from answerx.testing import FakeProviderServer
from fake_managers import MakeManager
from seeds.seed_examples import seed_example

QUESTION = "Who founded the company that operates the Tarn Valley Railway?"
# Phrases of the bundled templates that tell the steps apart.
SEARCH_R1 = "Answer the question below"
INFORMATION = "<information>Doc"  # the prompt itself names the bare tags
INVALID = "My previous action is invalid"
R1_SEARCHER = "The user asks a question"
DOCUMENTS = "<|begin_of_documents|>\n"
SEARCH_O1 = "You are a reasoning assistant who can search"
READ_DOCUMENTS = "You are reading documents retrieved"
SEARCH_RESULT = "<|begin_search_result|>"  # also in the prompt: add its rule first
IRCOT = "Reasoning so far"
ITER_RETGEN = "Answer the question using the passages below"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    with bundled_index(tmp_path_factory.mktemp("index") / "bundled.db") as built:
        yield built


def _contents(fake: FakeProviderServer, n: int) -> list[str]:
    return [m["content"] for m in fake.chat_requests[n].messages]


# --------------------------------------------------------------------------- search_r1


def test_search_r1_searches_inserts_information_and_answers(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel,
    index: Index,
) -> None:  # fmt: skip
    # The model runs past its query into invented results: the loop cuts them off.
    model.on(SEARCH_R1, "<think>Who operates it?</think><search> Tarn Valley Railway operator "
                        "</search><information>made up</information>")  # fmt: skip
    model.on(INFORMATION, "<think>Lumen Rail, founded by Tomasz Reyl.</think>"
                          "<answer> Tomasz Reyl </answer>")  # fmt: skip

    response = get_approach("search_r1", manager, retriever=index, top_k=2).execute(QUESTION)

    assert model.log == [SEARCH_R1, INFORMATION]
    first, _ = fake_provider.chat_requests
    assert first.json["stop"] == ["</search>"]
    prompt, turn, information = _contents(fake_provider, 1)
    assert QUESTION in prompt
    assert turn.endswith("</search>") and "made up" not in turn
    assert "made up" not in response.text  # nor in the transcript
    assert information.startswith("<information>Doc 1(Title: ")
    assert information.endswith("</information>")
    search = response.metadata.search  # type: ignore[attr-defined]
    # Read as UltraRAG's Search-R1 tool reads it: the missing question mark added.
    assert search["steps"][0]["query"] == "Tarn Valley Railway operator?"
    assert set(search["steps"][0]["passage_ids"]) == {"tarn-valley-railway", "lumen-rail"}
    assert sorted(search["citations"].values()) == [1, 2]
    assert response.extracted_answer == "Tomasz Reyl"
    meta = response.metadata
    assert (meta.termination, meta.stage, meta.calls) == ("answer", "deterministic", 2)
    assert response.usage == reported_usage(fake_provider)


def test_search_r1_searches_there_is_no_query_for_a_turn_without_one_as_the_tool_does(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel,
    index: Index,
) -> None:  # fmt: skip
    # The prompt names the bare tags too: its own rule, added last, wins for it.
    model.on("<information>", "<search>Lumen Rail founder?</search>", "<answer>T. Reyl</answer>")
    model.on(SEARCH_R1, "I am not sure what to do.")

    response = get_approach("search_r1", manager, retriever=index).execute(QUESTION)

    assert model.log == [SEARCH_R1, "<information>", "<information>"]
    steps = response.metadata.search["steps"]  # type: ignore[attr-defined]
    assert [s["query"] for s in steps] == ["There is no query.", "Lumen Rail founder?"]
    assert _contents(fake_provider, 1)[-1].startswith("<information>")
    assert response.metadata.invalid_turns == 1  # type: ignore[attr-defined]
    assert response.extracted_answer == "T. Reyl"


def test_search_r1_nudges_an_invalid_turn_when_asked(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel,
    index: Index,
) -> None:  # fmt: skip
    model.on(SEARCH_R1, "I am not sure what to do.")
    model.on(INVALID, "<search>Lumen Rail founder</search>")
    model.on(INFORMATION, "<answer>Tomasz Reyl</answer>")

    agent = get_approach("search_r1", manager, retriever=index, no_query="nudge")
    response = agent.execute(QUESTION)

    assert model.log == [SEARCH_R1, INVALID, INFORMATION]
    nudge = _contents(fake_provider, 1)[-1]
    assert nudge.startswith(INVALID) and "<search> and </search>" in nudge
    assert response.metadata.invalid_turns == 1  # type: ignore[attr-defined]
    assert response.extracted_answer == "Tomasz Reyl"


def test_search_r1_makes_the_final_attempt_at_the_turn_limit(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel,
    index: Index,
) -> None:  # fmt: skip
    model.on(SEARCH_R1, "<search>Tarn Valley Railway</search>")
    model.on(INFORMATION, "<search>Lumen Rail</search>")
    model.on(FINAL_ATTEMPT, "<answer>Tomasz Reyl</answer>")

    response = get_approach("search_r1", manager, retriever=index, max_turns=2).execute(QUESTION)

    assert model.log == [SEARCH_R1, INFORMATION, FINAL_ATTEMPT]
    # The final attempt is appended (tinyAgent's messages + [prompt]): the last
    # information, which the model has not answered yet, is part of it.
    final = _contents(fake_provider, 2)
    assert final[-3] == "<search>Lumen Rail</search>"
    assert final[-2].startswith("<information>") and FINAL_ATTEMPT in final[-1]
    meta = response.metadata
    assert (meta.stage, meta.termination, meta.calls) == ("final_attempt", "answer", 3)
    assert meta.step_limit == "max_turns"  # type: ignore[attr-defined]
    assert response.extracted_answer == "Tomasz Reyl"
    assert response.usage == reported_usage(fake_provider)


@seed_example(
    "001", 47, 'messages + [{"role": "user", "content": "Return your best final answer now."}]'
)
def test_search_r1_answers_its_last_information_in_the_final_attempt(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel,
    index: Index,
) -> None:  # fmt: skip
    model.on(SEARCH_R1, "<search>Tarn Valley Railway</search>")
    model.on(FINAL_ATTEMPT, "<answer>Tomasz Reyl</answer>")

    response = get_approach("search_r1", manager, retriever=index, max_turns=1).execute(QUESTION)

    final = fake_provider.chat_requests[1].messages
    assert [m["role"] for m in final] == ["user", "assistant", "user", "user"]
    assert final[2]["content"].startswith("<information>") and "Lumen Rail" in final[2]["content"]
    assert response.extracted_answer == "Tomasz Reyl"


def test_a_final_attempt_without_answer_raises_or_reports_the_termination(
    manager: InstructorClientManager, model: ScriptedModel, index: Index
) -> None:
    model.on(SEARCH_R1, "<search>Tarn Valley Railway</search>")
    model.on(FINAL_ATTEMPT, "I cannot tell.")

    with pytest.raises(StepLimitReached):
        get_approach("search_r1", manager, retriever=index, max_turns=1).execute(QUESTION)
    response = get_approach(
        "search_r1", manager, retriever=index, max_turns=1, result_mode=True
    ).execute(QUESTION)
    assert response.extracted_answer is None
    assert response.metadata.termination == "exceed available llm calls"


def test_the_call_budget_ends_a_search_loop_with_the_final_attempt(
    manager: InstructorClientManager, model: ScriptedModel, index: Index
) -> None:
    model.on(SEARCH_R1, "<search>Tarn Valley Railway</search>")
    model.on(FINAL_ATTEMPT, "<answer>Lumen Rail</answer>")

    response = get_approach(
        "search_r1", manager, retriever=index, budget=Budget(max_calls=1)
    ).execute(QUESTION)

    assert model.log == [SEARCH_R1, FINAL_ATTEMPT]
    assert response.metadata.budget_exhausted == "max_calls"  # type: ignore[attr-defined]
    assert response.metadata.stage == "final_attempt"
    # The search made before the budget ran out is in the trace.
    assert len(response.metadata.search["steps"]) == 1  # type: ignore[attr-defined]


def test_the_stop_sequence_goes_in_each_sdks_own_option(
    make_manager: MakeManager, fake_provider: FakeProviderServer, model: ScriptedModel,
    index: Index,
) -> None:  # fmt: skip
    model.on(SEARCH_R1, "<answer>Tomasz Reyl</answer>")
    get_approach("search_r1", make_manager("anthropic"), retriever=index).execute(QUESTION)
    assert fake_provider.chat_requests[-1].json["stop_sequences"] == ["</search>"]

    get_approach("search_r1", make_manager(), retriever=index, use_stop=False).execute(QUESTION)
    assert "stop" not in fake_provider.chat_requests[-1].json


def test_aexecute_runs_the_same_loop(
    manager: InstructorClientManager, model: ScriptedModel, index: Index
) -> None:
    model.on(SEARCH_R1, "<search>Lumen Rail founder</search>")
    model.on(INFORMATION, "<answer>Tomasz Reyl</answer>")

    approach = get_approach("search_r1", manager, retriever=index)
    response = asyncio.run(approach.aexecute(QUESTION))

    assert model.log == [SEARCH_R1, INFORMATION]
    assert response.extracted_answer == "Tomasz Reyl"


# --------------------------------------------------------------------------- r1_searcher


def test_r1_searcher_reads_a_query_cut_at_the_stop_token_and_inserts_documents(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel,
    index: Index,
) -> None:  # fmt: skip
    # The server dropped the stop string: the query's closing tag is missing.
    model.on(R1_SEARCHER, "<think>Look it up.<|begin_of_query|>Lumen Rail\tfounder")
    model.on(DOCUMENTS, "It was Tomasz Reyl.</think><answer>Tomasz Reyl</answer>")

    response = get_approach("r1_searcher", manager, retriever=index).execute(QUESTION)

    assert model.log == [R1_SEARCHER, DOCUMENTS]
    assert fake_provider.chat_requests[0].json["stop"] == ["<|end_of_query|>"]
    _, turn, documents = _contents(fake_provider, 1)
    assert turn.endswith("Lumen Rail\tfounder<|end_of_query|>")
    assert documents.startswith("<|begin_of_documents|>\nLumen Rail\n")
    assert documents.endswith("<|end_of_documents|>")
    assert response.metadata.search["steps"][0]["query"] == "Lumen Rail\tfounder"  # type: ignore[attr-defined]
    assert response.extracted_answer == "Tomasz Reyl"


# --------------------------------------------------------------------------- search_o1


def test_search_o1_condenses_documents_and_skips_a_repeated_query(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel,
    index: Index,
) -> None:  # fmt: skip
    query = "<|begin_search_query|>Tarn Valley Railway operator<|end_search_query|>"
    model.on(SEARCH_RESULT, f"Let me check again. {query}", "So it is \\boxed{Tomasz Reyl}.")
    model.on(SEARCH_O1, f"I need the operator. {query}")
    model.on(READ_DOCUMENTS, "Doc 1 says it.\n**Final Information**\nLumen Rail operates it; "
                             "Tomasz Reyl founded Lumen Rail.")  # fmt: skip

    response = get_approach("search_o1", manager, retriever=index).execute(QUESTION)

    assert model.log == [SEARCH_O1, READ_DOCUMENTS, SEARCH_RESULT, SEARCH_RESULT]
    # Reason-in-documents is a call of its own, outside the conversation.
    [reading] = _contents(fake_provider, 1)
    assert "I need the operator." in reading and "Tarn Valley Railway operator" in reading
    assert "Doc 1(Title: " in reading
    result = _contents(fake_provider, 2)[-1]
    assert result == ("<|begin_search_result|>Lumen Rail operates it; Tomasz Reyl founded "
                      "Lumen Rail.<|end_search_result|>")  # fmt: skip
    repeated = _contents(fake_provider, 3)[-1]
    assert "already" in repeated
    meta = response.metadata
    assert len(meta.search["steps"]) == 1  # type: ignore[attr-defined]  # searched once
    assert meta.search_o1["queries"] == ["Tarn Valley Railway operator"]  # type: ignore[attr-defined]
    assert response.extracted_answer == "Tomasz Reyl"
    assert meta.calls == 4 and response.usage == reported_usage(fake_provider)


def test_search_o1_refuses_searches_past_its_limit(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel,
    index: Index,
) -> None:  # fmt: skip
    model.on(SEARCH_RESULT, "<|begin_search_query|>Tomasz Reyl<|end_search_query|>",
             "\\boxed{Tomasz Reyl}")  # fmt: skip
    model.on(SEARCH_O1, "<|begin_search_query|>Lumen Rail<|end_search_query|>")
    model.on(READ_DOCUMENTS, "**Final Information**\nLumen Rail was founded by Tomasz Reyl.")

    response = get_approach("search_o1", manager, retriever=index, max_searches=1).execute(QUESTION)

    assert model.log == [SEARCH_O1, READ_DOCUMENTS, SEARCH_RESULT, SEARCH_RESULT]
    assert "search limit" in _contents(fake_provider, 3)[-1]
    assert response.extracted_answer == "Tomasz Reyl"


# --------------------------------------------------------------------------- ircot


def test_ircot_retrieves_with_each_first_sentence_until_so_the_answer_is(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel,
    index: Index,
) -> None:  # fmt: skip
    model.on(IRCOT, "The Tarn Valley Railway is operated by Lumen Rail. Extra text.",
             "So the answer is: Tomasz Reyl.")  # fmt: skip

    response = get_approach("ircot", manager, retriever=index, top_k=2).execute(QUESTION)

    steps = response.metadata.search["steps"]  # type: ignore[attr-defined]
    assert [s["query"] for s in steps] == [
        QUESTION,
        "The Tarn Valley Railway is operated by Lumen Rail.",
    ]
    second = _contents(fake_provider, 1)[0]
    assert "The Tarn Valley Railway is operated by Lumen Rail." in second
    assert "Extra text" not in second  # only the first sentence is kept
    # Passages accumulate: those of both retrievals are in the second prompt.
    for passage_id in {*steps[0]["passage_ids"], *steps[1]["passage_ids"]}:
        number = response.metadata.search["citations"][passage_id]  # type: ignore[attr-defined]
        assert f"[{number}] " in second
    assert response.extracted_answer == "Tomasz Reyl"


def test_ircot_makes_the_final_attempt_after_max_steps(
    manager: InstructorClientManager, model: ScriptedModel, index: Index
) -> None:
    model.on(IRCOT, "Lumen Rail operates it.")
    model.on(FINAL_ATTEMPT, "<answer>Tomasz Reyl</answer>")

    response = get_approach("ircot", manager, retriever=index, max_steps=2).execute(QUESTION)

    assert model.log == [IRCOT, IRCOT, FINAL_ATTEMPT]
    assert response.metadata.step_limit == "max_steps"  # type: ignore[attr-defined]
    assert response.extracted_answer == "Tomasz Reyl"


# --------------------------------------------------------------------------- iter_retgen


def test_iter_retgen_retrieves_with_the_question_and_the_previous_generation(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel,
    index: Index,
) -> None:  # fmt: skip
    first = "The railway is run by Lumen Rail, I think."  # no answer the rules can be sure of
    model.on(ITER_RETGEN, first, "<answer>Tomasz Reyl</answer>")

    response = get_approach("iter_retgen", manager, retriever=index, rounds=2).execute(QUESTION)

    steps = response.metadata.search["steps"]  # type: ignore[attr-defined]
    # UltraRAG's next query: f"{q} {ans}" with the round's generation, and no extraction
    # call for the unsure first round.
    assert [s["query"] for s in steps] == [QUESTION, f"{QUESTION} {first}"]
    assert len(fake_provider.chat_requests) == 2
    assert response.extracted_answer == "Tomasz Reyl"  # the last round's answer
    assert response.metadata.calls == 2


def test_iter_retgen_can_retrieve_with_the_previous_answer(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel,
    index: Index,
) -> None:  # fmt: skip
    model.on(ITER_RETGEN, "So it is <answer>Lumen Rail</answer>", "<answer>Tomasz Reyl</answer>")

    agent = get_approach("iter_retgen", manager, retriever=index, rounds=2, next_query="answer")
    response = agent.execute(QUESTION)

    steps = response.metadata.search["steps"]  # type: ignore[attr-defined]
    assert [s["query"] for s in steps] == [QUESTION, f"{QUESTION} Lumen Rail"]
    assert response.extracted_answer == "Tomasz Reyl"
    assert response.metadata.calls == 2


# --------------------------------------------------------------------------- configuration


def test_search_approaches_need_a_retriever_and_the_others_refuse_one(
    manager: InstructorClientManager, index: Index
) -> None:
    with pytest.raises(ConfigError, match="pass retriever="):
        get_approach("search_r1", manager)
    with pytest.raises(ConfigError, match="does not search"):
        get_approach("chain_of_thought", manager, retriever=index)
    with pytest.raises(ConfigError, match="retriever must have search"):
        get_approach("ircot", manager, retriever=Path("index.db"))
    with pytest.raises(ConfigError, match="unknown setting 'rounds'"):
        get_approach("search_r1", manager, retriever=index, rounds=2)
