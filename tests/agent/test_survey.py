"""SurveyCPM: the state machine transition by transition, action validation, passage
interleaving, a scripted full survey through the fake provider, and format_survey."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from answerx.agent import Budget
from answerx.agent.survey import (
    Section,
    Survey,
    SurveyRun,
    apply,
    citation_numbers,
    cited_keys,
    clean_title,
    cursor_of,
    format_survey,
    interleave_passages,
    parse_response,
    read_action,
    retrieved_keys,
    transition,
    validate_action,
    write_survey,
)
from answerx.retrieval import Index, Passage, bundled_index
from answerx.structured import InstructorClientManager
from answerx.testing import FakeProviderServer, RecordedRequest, Reply

LONG = "Ostrand's instrument makers grew around the capital and its observatory. "


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    with bundled_index(tmp_path_factory.mktemp("index") / "bundled.db") as built:
        yield built


def _survey(*sections: Section) -> Survey:
    return Survey(title="Ostrand", sections=list(sections))


def _reply(action: Any, thought: str = "Next.") -> str:
    body = action if isinstance(action, str) else json.dumps(action)
    return f"<thought>{thought}</thought><action>{body}</action>"


# --------------------------------------------------------------------------- transitions


@pytest.mark.parametrize(
    ("state", "kwargs", "expected"),
    [
        ("search", {"cursor": "outline"}, ("analyst-init_plan", 0)),
        ("search", {"cursor": "section-2.1"}, ("write", 0)),
        ("search", {"cursor": None}, ("done", 0)),
        ("analyst-init_plan", {"cursor": "section-1"}, ("search", 0)),
        ("analyst-init_plan", {"cursor": "outline"}, ("analyst-init_plan", 0)),
        ("write", {"cursor": "section-2"}, ("search", 0)),
        ("write", {"cursor": None}, ("analyst-extend_plan", 1)),
        ("write", {"cursor": None, "extend_time": 12}, ("done", 12)),
        ("analyst-extend_plan", {"extend_result": "extended", "extend_time": 1}, ("search", 1)),
        ("analyst-extend_plan", {"extend_result": "nop", "extend_time": 1}, ("done", 1)),
        # A failed parse keeps the state; an extension attempt still counts.
        ("write", {"parsed": False, "cursor": "section-1"}, ("write", 0)),
        ("search", {"parsed": False, "cursor": "outline"}, ("search", 0)),
        ("analyst-extend_plan", {"parsed": False, "extend_time": 3}, ("analyst-extend_plan", 4)),
        ("analyst-extend_plan", {"parsed": False, "extend_time": 12}, ("done", 13)),
        # The step limit ends everything.
        ("write", {"cursor": "section-1", "step": 140}, ("done", 0)),
        ("done", {"cursor": "section-1"}, ("done", 0)),
    ],
)
def test_each_transition(state: Any, kwargs: dict[str, Any], expected: tuple[str, int]) -> None:
    args = {"parsed": True, "cursor": None, "step": 0, "extend_time": 0, **kwargs}
    assert transition(state, **args) == expected


def test_the_cursor_walks_depth_first_to_the_first_unwritten_part() -> None:
    assert cursor_of(None) == "outline"
    survey = _survey(
        Section(title="A", plan="a", content="done"),
        Section(
            title="B",
            plan="b",
            content="done",
            subsections=[
                Section(title="B1", plan="b1", content="done"),
                Section(title="B2", plan="b2"),
            ],
        ),
        Section(title="C", plan="c"),
    )
    assert cursor_of(survey) == "section-2.2"
    survey.sections[1].subsections[1].content = "done"  # type: ignore[index]
    assert cursor_of(survey) == "section-3"
    survey.sections[2].content = "done"
    assert cursor_of(survey) is None


# --------------------------------------------------------------------------- actions


PLANS = [{"title": f"S{i}", "plan": f"plan {i}"} for i in range(3)]
HARD: dict[str, Any] = {"hard_mode": True}
WRITTEN = _survey(
    Section(title="A", plan="a", content="x"),
    Section(title="B", plan="b", content="x", subsections=[Section(title="B1", content="x")]),
)


@pytest.mark.parametrize(
    ("action", "valid", "kwargs", "problem"),
    [
        ({"name": "search", "keywords": ["a", "b"]}, ["search"], {}, None),
        ({"name": "search", "keywords": list("abcdef")}, ["search"], HARD, "at most 5 keywords"),
        # Hard mode is off by default, as in SurveyCPM's configuration (hard_mode: false).
        ({"name": "search", "keywords": list("abcdef")}, ["search"], {}, None),
        ({"name": "search", "keywords": []}, ["search"], {}, "non-empty list of keywords"),
        ({"name": "search", "keywords": ["a"], "k": 3}, ["search"], {}, "exactly"),
        ({"name": "write", "content": LONG}, ["search"], {}, "not one of search"),
        ({"name": "init-plan", "title": "T", "sections": PLANS}, ["init-plan"], {}, None),
        ({"name": "init-plan", "title": "T", "sections": PLANS[:2]}, ["init-plan"], HARD,
         "3 to 12"),
        ({"name": "init-plan", "title": "T", "sections": [{"title": "S"}] * 3}, ["init-plan"], {},
         "'title', 'plan'"),
        ({"name": "init-plan", "title": "T", "sections": PLANS}, ["init-plan"],
         {"instruction": "写一篇关于奥斯特兰的综述", **HARD}, "language"),
        ({"name": "extend-plan", "position": "section-1", "subsections": PLANS[:2]},
         ["extend-plan", "nop"], {"survey": WRITTEN}, None),
        ({"name": "extend-plan", "position": "section-2", "subsections": PLANS[:2]},
         ["extend-plan", "nop"], {"survey": WRITTEN}, "already has subsections"),
        ({"name": "extend-plan", "position": "section-1", "subsections": PLANS[:2]},
         ["extend-plan"], {"survey": WRITTEN, "cursor": "section-2"}, "must be at section-2"),
        ({"name": "extend-plan", "position": "section-1.1.1", "subsections": PLANS[:2]},
         ["extend-plan"], {}, "only sections and subsections"),
        ({"name": "extend-plan", "position": "section-9", "subsections": PLANS[:2]},
         ["extend-plan"], {"survey": WRITTEN}, "no section-9"),
        ({"name": "extend-plan", "position": "section-1", "subsections": PLANS[:1]},
         ["extend-plan"], {"survey": WRITTEN, **HARD}, "2 to 7"),
        ({"name": "nop"}, ["extend-plan", "nop"], {}, None),
        ({"name": "nop", "why": "done"}, ["extend-plan", "nop"], {}, "no fields"),
        ({"name": "write", "content": LONG + "\\cite{textid1}"}, ["write"],
         {"retrieved": ["textid1"], **HARD}, None),
        ({"name": "write", "content": "Too short."}, ["write"], HARD, "longer than 50"),
        ({"name": "write", "content": "## Heading\n" + LONG}, ["write"], HARD, "headings"),
        ({"name": "write", "content": LONG + "bibkey: textid1"}, ["write"], HARD, "'bibkey'"),
        ({"name": "write", "content": LONG + "\\cite{textid2, textid1}"}, ["write"],
         {"retrieved": ["textid1"], **HARD}, "not retrieved: textid2"),
        ({"name": "write", "content": LONG + "\\cite{a}" * 13}, ["write"],
         {"retrieved": ["a"], **HARD}, "at most 12"),
        ({"name": "write", "content": LONG}, ["write"], {"instruction": "写一篇综述", **HARD},
         "language"),
        ({"name": "write", "content": "Short."}, ["write"], {}, None),
        ({"name": "write", "content": "  "}, ["write"], {}, "empty"),
    ],
)  # fmt: skip
def test_validate_action(
    action: dict[str, Any], valid: list[Any], kwargs: dict[str, Any], problem: str | None
) -> None:
    found = validate_action(action, valid, **kwargs)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found


def test_parse_response_reads_thought_and_action_and_says_why_it_failed() -> None:
    ok = parse_response(_reply({"name": "search", "keywords": ["Lumen Rail"]}), ["search"])
    assert (ok.ok, ok.thought, ok.action["keywords"]) == (True, "Next.", ["Lumen Rail"])
    fenced = parse_response(_reply('```json\n{"name": "nop"}\n```'), ["extend-plan", "nop"])
    assert fenced.ok
    assert parse_response("no tags", ["search"]).problem == "no <action> block"
    assert "not JSON" in (parse_response(_reply("{oops"), ["search"]).problem or "")
    written = parse_response(_reply(LONG), ["write"])
    assert written.action == {"name": "write", "content": LONG.strip()}


EXTEND = {"name": "extend-plan", "position": "section-1", "subsections": PLANS[:2]}
XML_ACTIONS = [
    ("<action><name>search</name><keywords><keyword>Lumen Rail</keyword>"
     "<keyword>Reyl</keyword></keywords></action>",
     {"name": "search", "keywords": ["Lumen Rail", "Reyl"]}),
    ("<search><keywords>Lumen Rail\nReyl</keywords></search>",
     {"name": "search", "keywords": ["Lumen Rail", "Reyl"]}),
    ("<action><init-plan><title>Ostrand</title><sections>"
     + "".join(f"<section><title>S{i}</title><plan>plan {i}</plan></section>" for i in range(3))
     + "</sections></init-plan></action>",
     {"name": "init-plan", "title": "Ostrand", "sections": PLANS}),
    ('<action name="extend-plan"><position>section-1</position><subsections>'
     "<subsection><title>S0</title><plan>plan 0</plan></subsection>"
     "<subsection><title>S1</title><plan>plan 1</plan></subsection></subsections></action>",
     EXTEND),
    ("<action><nop/></action>", {"name": "nop"}),
    ("<write><content>Lumen Rail grew &amp; grew \\cite{textid1}.</content></write>",
     {"name": "write", "content": "Lumen Rail grew & grew \\cite{textid1}."}),
]  # fmt: skip


@pytest.mark.parametrize(("text", "action"), XML_ACTIONS)
def test_actions_read_as_xml_elements(text: str, action: dict[str, Any]) -> None:
    assert read_action(f"<thought>Next.</thought>{text}") == action


@pytest.mark.parametrize(
    "text",
    [
        _reply(EXTEND),  # the wrapper
        json.dumps(EXTEND),  # bare JSON
        f"<thought>Deeper.</thought>\n```json\n{json.dumps(EXTEND)}\n```",  # fenced, no <action>
        f"I will extend section 1: {json.dumps(EXTEND)}",  # after some words
    ],
)
def test_actions_read_as_json_with_or_without_the_wrapper(text: str) -> None:
    assert read_action(text) == EXTEND
    assert parse_response(text, ["extend-plan", "nop"]).ok


def test_the_write_step_takes_only_a_write_action(index: Index) -> None:
    survey = _survey(Section(title="A", plan="a", content=LONG), Section(title="B", plan="b"))
    run = SurveyRun(instruction="A survey of Ostrand", state="write", survey=survey)

    entry = apply(run, _reply(EXTEND), index, top_k=3, hard_mode=False)

    # Read as what it is, an extension, and rejected: the step is kept, section 2 unwritten.
    assert (entry["action"], entry["ok"]) == ("extend-plan", False)
    assert "not one of write" in entry["problem"]
    assert (run.state, run.cursor) == ("write", "section-2")
    assert run.survey is not None and run.survey.sections[1].content is None
    # A write action, as JSON, XML or the plain content of <action>, is the content.
    for reply in (
        _reply({"name": "write", "content": "Lumen Rail grew."}),
        "<action><write><content>Lumen Rail grew.</content></write></action>",
        _reply("Lumen Rail grew."),
    ):
        parsed = parse_response(reply, ["write"])
        assert parsed.action == {"name": "write", "content": "Lumen Rail grew."}, reply


def test_a_write_step_answered_with_an_extension_never_becomes_section_text(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, index: Index
) -> None:
    answered: list[str] = []

    def model(request: RecordedRequest) -> Reply:
        prompt = request.messages[-1]["content"]
        if "Now write the part at section-2" in prompt and "section-2" not in answered:
            answered.append("section-2")  # first: the wrong action, then the content
            return Reply.text(_reply({**EXTEND, "position": "section-2"}))
        return _scripted_model(request)

    fake_provider.set_default(model)

    result = write_survey("A survey of Ostrand's instrument makers", manager, index, top_k=3)

    assert result.survey is not None
    assert "extend-plan" not in json.dumps(result.survey)
    assert result.survey["sections"][1]["content"].startswith(LONG.strip())
    rejected = [e for e in result.trace if not e["ok"]]
    assert [(e["state"], e["action"]) for e in rejected] == [("write", "extend-plan")]


def test_a_section_that_mentions_an_action_tag_is_written(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, index: Index
) -> None:
    mention = "Search-R1 models wrap each query in <search> tags, and idle agents answer <nop/>."

    def model(request: RecordedRequest) -> Reply:
        prompt = request.messages[-1]["content"]
        if "Now write the part at" in prompt:
            key = re.findall(r"bibkey: (\S+)", prompt)[0]
            return Reply.text(_reply(f"{LONG}{mention} \\cite{{{key}}}"))
        return _scripted_model(request)

    fake_provider.set_default(model)

    result = write_survey("A survey of Ostrand's instrument makers", manager, index, top_k=3)

    assert result.termination == "answer" and all(entry["ok"] for entry in result.trace)
    assert result.survey is not None
    assert all(mention in s["content"] for s in result.survey["sections"])


def test_hard_mode_is_off_by_default_as_in_surveycpms_configuration() -> None:
    defaults = {
        name: inspect.signature(fn).parameters["hard_mode"].default
        for name, fn in [("write_survey", write_survey), ("parse_response", parse_response),
                         ("validate_action", validate_action)]
    }  # fmt: skip
    assert defaults == {"write_survey": False, "parse_response": False, "validate_action": False}
    short = {"name": "write", "content": "Lumen Rail grew."}
    assert parse_response(_reply(short), ["write"]).ok
    assert not parse_response(_reply(short), ["write"], hard_mode=True).ok


def test_citation_keys_come_from_cite_commands_and_bibkey_lines() -> None:
    assert cited_keys(r"A \cite{textid2, textid1} B \citep{x} \cite{textid2}") == [
        "textid2", "textid1", "x",
    ]  # fmt: skip
    assert retrieved_keys("bibkey: textid1\nLumen Rail\n\nbibkey: reyl1888\nTomasz") == [
        "textid1", "reyl1888",
    ]  # fmt: skip


# --------------------------------------------------------------------------- passages


def _p(pid: str, contents: str | None = None) -> Passage:
    return Passage(id=pid, contents=contents or pid)


def test_passages_are_interleaved_per_keyword_deduplicated_and_keep_their_keys() -> None:
    keys: dict[str, str] = {}
    first = interleave_passages([[_p("a"), _p("b"), _p("c")], [_p("b"), _p("d"), _p("e")]], 4, keys)
    # Two from each keyword first (4 // 2), each id once, then fill: c after d.
    assert [(k, p.id) for k, p in first] == [
        ("textid1", "a"), ("textid2", "b"), ("textid3", "d"), ("textid4", "c"),
    ]  # fmt: skip
    again = interleave_passages(
        [[_p("d"), _p("f", "bibkey: fenwick1911\nFenwick"), _p("g")]], 5, keys
    )
    # A passage's own bibkey is its key; every passage's number is its place (textidN: N).
    assert [(k, p.id) for k, p in again] == [
        ("textid3", "d"), ("fenwick1911", "f"), ("textid6", "g"),
    ]  # fmt: skip
    assert citation_numbers(keys) == {
        "textid1": 1, "textid2": 2, "textid3": 3, "textid4": 4, "fenwick1911": 5, "textid6": 6,
    }  # fmt: skip


# --------------------------------------------------------------------------- the machine


def test_a_failed_parse_keeps_the_state_and_the_survey(index: Index) -> None:
    run = SurveyRun(instruction="A survey of Ostrand's companies", state="analyst-init_plan")
    entry = apply(run, _reply({"name": "init-plan", "title": "T", "sections": PLANS[:1]}), index,
                  top_k=5, hard_mode=True)  # fmt: skip
    assert (run.state, run.survey, run.step) == ("analyst-init_plan", None, 1)
    assert entry["ok"] is False and "3 to 12" in entry["problem"]


def test_a_search_step_retrieves_each_keyword(index: Index) -> None:
    run = SurveyRun(instruction="A survey of Ostrand's companies")
    apply(run, _reply({"name": "search", "keywords": ["Lumen Rail", "Brightwater"]}), index,
          top_k=4, hard_mode=True)  # fmt: skip
    assert run.state == "analyst-init_plan"
    assert {"lumen-rail", "brightwater-instruments"} <= {p.id for _, p in run.cited}
    assert run.passages.startswith("bibkey: textid1\n")


def _scripted_model(request: RecordedRequest) -> Reply:
    prompt = request.messages[-1]["content"]
    if "Decide what to look up next" in prompt:
        return Reply.text(_reply({"name": "search", "keywords": ["Brightwater Instruments"]}))
    if "Plan the survey" in prompt:
        plan = {"name": "init-plan", "title": "Section-1. Instruments of Ostrand",
                "sections": [{"title": t, "plan": f"About {t}."} for t in
                             ("1. Makers", "(2) Optics", "Section-3 Prizes")]}  # fmt: skip
        return Reply.text(_reply(plan))
    if "Now write the part at" in prompt:
        key = re.findall(r"bibkey: (\S+)", prompt)[0]
        return Reply.text(_reply(f"{LONG}Brightwater was founded in 1898 \\cite{{{key}}}."))
    if "Every planned part is written" in prompt:
        if "[Sub A]" in prompt:
            return Reply.text(_reply({"name": "nop"}))
        subsections = [{"title": "Sub A", "plan": "a"}, {"title": "Sub B", "plan": "b"}]
        extend = {"name": "extend-plan", "position": "section-1", "subsections": subsections}
        return Reply.text(_reply(extend))
    return Reply.text("unexpected prompt")


def test_a_scripted_survey_runs_to_the_end(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, index: Index
) -> None:
    fake_provider.set_default(_scripted_model)

    result = write_survey("A survey of Ostrand's instrument makers", manager, index, top_k=3)

    states = [entry["state"] for entry in result.trace]
    assert states == [
        "search", "analyst-init_plan",
        "search", "write", "search", "write", "search", "write",  # the three sections
        "analyst-extend_plan",  # section-1 gets two subsections
        "search", "write", "search", "write",
        "analyst-extend_plan",  # nop
    ]  # fmt: skip
    assert all(entry["ok"] for entry in result.trace)
    assert (result.termination, result.steps, result.calls) == ("answer", 14, 14)
    assert result.survey is not None
    assert [s["title"] for s in result.survey["sections"][0]["subsections"]] == ["Sub A", "Sub B"]
    markdown = result.markdown
    # The model's numbering is cleaned off the title as off the section titles.
    assert markdown.startswith("# Instruments of Ostrand\n\n## 1 Makers\n")
    assert "## 2 Optics" in markdown and "## 3 Prizes" in markdown
    assert "### 1.1 Sub A" in markdown and "[1]" in markdown and "\\cite" not in markdown
    assert result.citations["textid1"] == 1
    assert format_survey(result.survey, citations=result.citations) == markdown
    assert result.usage.input_tokens > 0
    # The first write prompt: its part, its plan, and the passages of the search before it.
    writes = [r for r in fake_provider.chat_requests if "Now write the part" in r.text]
    first = writes[0].messages[-1]["content"]
    assert 'Now write the part at section-1, titled "1. Makers"' in first
    assert "About 1. Makers." in first and "bibkey: textid1\nBrightwater Instruments" in first


def test_the_step_limit_and_the_budget_end_a_survey(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, index: Index
) -> None:
    fake_provider.set_default(_scripted_model)
    limited = write_survey("A survey of Ostrand", manager, index, max_step=3)
    assert (limited.steps, limited.termination) == (3, "exceed available llm calls")
    assert limited.markdown.count("*About") == 3  # plans in italics where nothing is written

    budgeted = write_survey("A survey of Ostrand", manager, index, budget=Budget(max_calls=1))
    assert (budgeted.calls, budgeted.termination) == (1, "exceed available llm calls")
    assert budgeted.survey is None and budgeted.markdown == "No survey was written."


# --------------------------------------------------------------------------- Markdown


@pytest.mark.parametrize(
    ("survey", "markdown"),
    [
        (None, "No survey was written."),
        ({"title": "T", "sections": [{"title": "Intro", "plan": "p", "content": "Hello."}]},
         "# T\n\n## 1 Intro\n\nHello."),
        ({"title": "T", "sections": [{"title": "Section-1. Intro", "plan": "Say hello."}]},
         "# T\n\n## 1 Intro\n\n*Say hello.*"),
        ({"title": "T", "sections": [
            {"title": "(1) A", "plan": "a", "content": "See \\cite{textid3, textid1}.",
             "subsections": [{"title": "1.1 B", "plan": "b", "subsections": [
                 {"title": "第一章 C", "plan": "c", "content": "Deep \\cite{reyl1888}."}]}]},
         ]},
         "# T\n\n## 1 A\n\nSee [1][3].\n\n### 1.1 B\n\n*b*\n\n#### 1.1.1 C\n\nDeep [reyl1888]."),
        ({"title": "T", "sections": [{"title": "一、 A", "plan": "",
                                      "content": "As Section-2.1 says.\n\n\n\n   ## Inner"}]},
         "# T\n\n## 1 A\n\nAs says.\n\n## Inner"),
    ],
)  # fmt: skip
def test_format_survey(survey: dict[str, Any] | None, markdown: str) -> None:
    assert format_survey(survey) == markdown


def test_format_survey_numbers_citep_and_a_passages_own_bibkey() -> None:
    survey = {"title": "2. Instruments of Ostrand", "sections": [{
        "title": "Makers", "plan": "",
        "content": "Founded 1898 \\citep{fenwick1911}, see \\citet[p.~3]{textid2, textid1} and "
                   "\\cite{bibkey: fenwick1911}. \\nocite{textid4}Unknown \\cite{other2001}.",
    }]}  # fmt: skip

    markdown = format_survey(survey, citations={"textid1": 1, "textid2": 2, "fenwick1911": 3})

    assert markdown == (
        "# Instruments of Ostrand\n\n## 1 Makers\n\n"
        "Founded 1898 [3], see [1][2] and [3]. Unknown [other2001]."
    )


@pytest.mark.parametrize(
    ("title", "clean"),
    [("Section-2. Optics", "Optics"), ("Section 3 Prizes", "Prizes"), ("2.3.1 Lenses", "Lenses"),
     ("4. Rail", "Rail"), ("(5) Banks", "Banks"), ("第二章 铁路", "铁路"), ("三、 银行", "银行"),
     ("2021 in review", "2021 in review")],
)  # fmt: skip
def test_clean_title_drops_the_models_numbering(title: str, clean: str) -> None:
    assert clean_title(title) == clean


def test_format_survey_renders_three_levels_at_most() -> None:
    d = {"title": "D", "content": "too deep"}
    c = {"title": "C", "subsections": [d]}
    deep = {
        "title": "T",
        "sections": [{"title": "A", "subsections": [{"title": "B", "subsections": [c]}]}],
    }
    markdown = format_survey(deep)
    assert "#### 1.1.1 C" in markdown and "D" not in markdown.replace("# T", "")


def test_format_survey_refuses_what_is_not_a_survey(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a survey"):
        format_survey({"sections": "nope"})


def test_the_survey_command_prints_the_markdown(
    fake_provider_env: FakeProviderServer, index: Index, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from typer.testing import CliRunner

    from answerx.cli import app

    monkeypatch.delenv("ANSWERX_PROVIDERS", raising=False)
    fake_provider_env.set_default(_scripted_model)
    out = tmp_path / "survey.md"
    result = CliRunner().invoke(app, [
        "survey", "A survey of Ostrand's instrument makers", "--index", index.path,
        "--provider", "openai", "--model", "gpt-test", "--top-k", "3", "--out", str(out),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "## 1 Makers" in result.output
    assert out.read_text(encoding="utf-8").startswith("# Instruments of Ostrand")
