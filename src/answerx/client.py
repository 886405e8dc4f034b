"""``answerx.client``: the old import path of answerx.service.client.

The Python client lives beside the service it talks to. This module *is* that module
(``sys.modules``), so ``import answerx.client``, ``from answerx.client import Client`` and
a patch of ``answerx.client.X`` all reach the one client; the names are repeated here for
type checkers.
"""

import sys

from answerx.service import client as _client
from answerx.service.client import (
    DEFAULT_URL,
    AsyncClient,
    BatchItem,
    Client,
    ServiceError,
    VerifyItem,
)

__all__ = [
    "DEFAULT_URL",
    "AsyncClient",
    "BatchItem",
    "Client",
    "ServiceError",
    "VerifyItem",
]

sys.modules[__name__] = _client
