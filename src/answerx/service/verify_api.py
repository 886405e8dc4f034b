"""``POST /v1/verify``, ``/v1/verify/batch`` and ``/v1/reward`` (OpenRLHF's remote reward).

Verification may wait on math-verify's worker process (up to each item's time
limit), so these handlers are plain ``def`` and run in FastAPI's thread pool,
never on the event loop; :mod:`answerx.grading` is thread-safe and signal-free
for exactly this. Verdicts are counted by reason in ``answerx_verdicts_total``.
With a judge configured on the server (:mod:`answerx.service.judge`), ``/v1/verify``
and ``/v1/verify/batch`` ask it about the items the rules cannot decide, and only
those; ``/v1/reward`` stays rules-only (a trainer's reward must be fast and fixed).
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import APIRouter
from prometheus_client import Counter
from pydantic import ValidationError
from starlette.responses import Response

from answerx.batch.residue import Residue, judge_residue
from answerx.errors import AnswerxError, redact
from answerx.grading import Verdict, verify
from answerx.grading.residue import judge_totals
from answerx.grading.rewards import reward_logs, reward_verdicts
from answerx.service.asgi import JSON
from answerx.service.errors import ERROR_RESPONSES, ApiError, validation_message
from answerx.service.judge import ServerJudge, server_judge
from answerx.service.metrics import ServiceMetrics
from answerx.service.openapi import example_response
from answerx.service.schemas import ErrorDetail
from answerx.service.settings import ServiceSettings
from answerx.service.verify_schemas import (
    MAX_GOLDS,
    VERIFY_EXAMPLE,
    RewardRequest,
    RewardResponse,
    VerifyBatchItem,
    VerifyBatchRequest,
    VerifyBatchResponse,
    VerifyRequest,
)

__all__ = ["verify_router"]

# The 200 examples are real verdicts (a numeric item: no math-verify worker is needed),
# so the documented shape cannot drift from what the endpoints return.
_VERDICT_EXAMPLE: Final = verify(
    VERIFY_EXAMPLE["raw_output"], VERIFY_EXAMPLE["gold"], VERIFY_EXAMPLE["task"]
).model_dump(mode="json")


def _reward_example() -> dict[str, Any]:
    request = RewardRequest.model_validate(RewardRequest.model_json_schema()["examples"][0])
    judged = reward_verdicts(request.query, request.prompts or [], request.labels)
    scores = [v.reward for v in judged]
    return {"rewards": scores, "scores": scores, "extra_logs": reward_logs(judged)}


_REWARD_EXAMPLE: Final = _reward_example()


def verify_router(settings: ServiceSettings, metrics: ServiceMetrics) -> APIRouter:
    """The verification endpoints of one app (their verdict counter joins its registry)."""
    router = APIRouter(prefix="/v1", tags=["verification"])
    max_batch = settings.max_batch
    rewarding = settings.reward
    judge = server_judge(settings, metrics)
    verdicts = Counter(
        "answerx_verdicts",
        "Verdicts given, by reason (equivalent, different, no_answer, ...) and endpoint.",
        ["reason", "endpoint"],
        registry=metrics.registry,
    )

    def count(items: list[Verdict], endpoint: str) -> None:
        for verdict in items:
            verdicts.labels(verdict.reason, endpoint).inc()

    def check_size(n: int) -> None:
        if n > max_batch:
            raise ApiError(
                413, "batch_too_large", f"a batch holds at most {max_batch} items; this one has {n}"
            )

    @router.post(
        "/verify",
        response_model=Verdict,
        summary="Is the answer in one raw output right?",
        responses={**ERROR_RESPONSES, **example_response(_VERDICT_EXAMPLE)},
    )
    def verify_one(body: VerifyRequest) -> Response:
        """The :class:`Verdict`: ``correct`` (null only for an unreadable gold), ``reason``,
        ``how`` (the predicate that decided), ``answer``, ``matched_gold`` (which accepted
        answer matched) and the extraction. With a judge on the server (``answerx serve
        --judge``) an item the rules cannot decide (``doubt``) is put to it: its ruling,
        reason and cost are in ``judge``."""
        verdict = _verify(body, judge if body.judge else None)
        count([verdict], "/v1/verify")
        return Response(verdict.model_dump_json(), media_type=JSON)

    @router.post(
        "/verify/batch",
        response_model=VerifyBatchResponse,
        summary="Judge many raw outputs",
        responses={
            **ERROR_RESPONSES,
            **example_response(
                {
                    "results": [{"verdict": _VERDICT_EXAMPLE, "error": None}],
                    "succeeded": 1,
                    "failed": 0,
                }
            ),
        },
    )
    def verify_batch_(body: VerifyBatchRequest) -> Response:
        """One result per item, in order; a malformed item gets its own ``error`` and the
        others are judged all the same. More than ``ANSWERX_MAX_BATCH`` items: 413. With a
        judge on the server, the items the rules cannot decide are put to it (a few at a
        time) and ``judge`` sums what it did and cost."""
        check_size(len(body.items))
        results: list[VerifyBatchItem] = []
        residue: list[Residue] = []
        for item in body.items:
            try:
                request = VerifyRequest.model_validate(item)
                verdict = _verify(request, None)
            except ValidationError as exc:
                message = validation_message(exc.errors(include_url=False))
                results.append(_failure("validation_error", message))
            except AnswerxError as exc:
                results.append(_failure("invalid_request", redact(str(exc))))
            else:
                if judge is not None and request.judge and verdict.doubt is not None:
                    residue.append(
                        Residue(len(results), verdict=verdict, gold=request.gold,
                                question=request.question, choices=request.choices)
                    )  # fmt: skip
                results.append(VerifyBatchItem.model_construct(verdict=verdict, error=None))
        if judge is not None:
            ruled = judge_residue(residue, judge, judge.concurrency) or []
            for asked, ruling in zip(residue, ruled, strict=True):
                results[asked.index] = VerifyBatchItem.model_construct(verdict=ruling, error=None)
        verdicts = [r.verdict for r in results if r.verdict is not None]
        count(verdicts, "/v1/verify/batch")
        failed = sum(r.error is not None for r in results)
        response = VerifyBatchResponse.model_construct(
            results=results, succeeded=len(results) - failed, failed=failed,
            judge=judge_totals(verdicts) if judge is not None else None,
        )  # fmt: skip
        return Response(response.model_dump_json(), media_type=JSON)

    @router.post(
        "/reward",
        response_model=RewardResponse,
        summary="OpenRLHF remote reward: rewards for rollouts against their labels",
        responses={**ERROR_RESPONSES, **example_response(_REWARD_EXAMPLE)},
    )
    def reward(body: RewardRequest) -> Response:
        """OpenRLHF's ``--remote_rm_url`` protocol: ``query`` (prompt and response),
        ``prompts`` and ``labels`` in; ``rewards``, ``scores`` and ``extra_logs`` out. The
        prompt and the chat template's special tokens are stripped from each query. The
        task is the request's ``task``, else the server's ``--reward-task``; a label
        object (or a ``metas`` entry) gives one row its own task, choices and numbers."""
        n = len(body.query)
        check_size(n)
        prompts = body.prompts if body.prompts is not None else [""] * n
        if len(prompts) != n or len(body.labels) != n:
            raise ApiError(
                422, "validation_error",
                f"query, prompts and labels need one entry per rollout: {n}, {len(prompts)} "
                f"and {len(body.labels)}",
            )  # fmt: skip
        if body.metas is not None and len(body.metas) != n:
            raise ApiError(
                422,
                "validation_error",
                f"metas needs one entry per rollout: {n}, not {len(body.metas)}",
            )
        judged = reward_verdicts(
            body.query,
            prompts,
            body.labels,
            task=body.task or rewarding.task,
            fields=rewarding.fields,
            metas=body.metas,
            max_golds=MAX_GOLDS,  # as many aliases as /v1/verify takes, however nested
        )
        count(judged, "/v1/reward")
        scores = [v.reward for v in judged]
        response = RewardResponse(rewards=scores, scores=scores, extra_logs=reward_logs(judged))
        return Response(response.model_dump_json(), media_type=JSON)

    return router


def _verify(body: VerifyRequest, judge: ServerJudge | None) -> Verdict:
    return verify(
        body.raw_output,
        body.gold,
        body.task,
        choices=body.choices,
        numbers=body.numbers,
        finish_reason=body.finish_reason,
        question=body.question,
        judge=judge,
    )


def _failure(type_: str, message: str) -> VerifyBatchItem:
    return VerifyBatchItem.model_construct(
        verdict=None, error=ErrorDetail(type=type_, message=message)
    )
