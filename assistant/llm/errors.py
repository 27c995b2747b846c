"""What can go wrong talking to the chat model, each with what the user can do about it.

Every class carries a stable `code` the UI can use as a translation key; `message` and
`hint` are short English defaults.
"""

from __future__ import annotations

from assistant.errors import MnemoError, ModelUnavailableError


class LLMError(MnemoError):
    """Any failure of the chat backend that the user (not our code) can fix."""

    code: str = "llm_error"


class OllamaUnavailable(LLMError):
    """Nothing answers at the configured Ollama address."""

    code = "ollama_down"

    def __init__(self, host: str) -> None:
        super().__init__(
            f"Ollama is not running or not reachable at {host}.",
            "Start Ollama (`ollama serve` or open the Ollama app), then retry.",
        )
        self.host = host


class ModelNotInstalled(LLMError, ModelUnavailableError):
    """Ollama runs but does not have the requested model."""

    code = "model_missing"

    def __init__(self, model: str) -> None:
        super().__init__(
            f"The model {model} is not installed in Ollama.",
            f"Run `ollama pull {model}`, then retry.",
        )
        self.model = model


class BackendTimeout(LLMError):
    """Ollama accepted the request but sent nothing back in time."""

    code = "timeout"

    def __init__(self, model: str, timeout_s: float) -> None:
        super().__init__(
            f"{model} did not answer within {timeout_s:g} s.",
            "The first reply after loading a large model can take minutes: retry, "
            "or raise request_timeout_s in the settings.",
        )
        self.model = model
        self.timeout_s = timeout_s


class StreamInterrupted(LLMError):
    """The reply stopped before it was complete. `partial` is what arrived."""

    code = "stream_cut"

    def __init__(self, partial: str, reason: str) -> None:
        super().__init__(
            f"The reply was cut off: {reason}",
            "Retry; if it keeps happening, look at the Ollama log.",
        )
        self.partial = partial
        self.reason = reason


class InvalidJSONReply(LLMError):
    """The model's structured answer is not the JSON object asked for. `raw` is its text."""

    code = "bad_json"

    def __init__(self, model: str, raw: str, reason: str) -> None:
        super().__init__(
            f"{model} did not return a valid JSON answer ({reason}).",
            "Retry, or choose a model that follows JSON schemas better.",
        )
        self.model = model
        self.raw = raw
        self.reason = reason


class CloudModelRefused(LLMError):
    """The model runs on Ollama's cloud, and the user has not allowed that."""

    code = "cloud_refused"

    def __init__(self, model: str) -> None:
        super().__init__(
            f"{model} runs on Ollama's cloud, so your messages would leave this computer.",
            "Choose a local model, or set allow_cloud_models = true in the settings.",
        )
        self.model = model


class ModelPullFailed(LLMError):
    """Ollama could not download a model (unknown name, no network, disk full…)."""

    code = "pull_failed"

    def __init__(self, model: str, detail: str) -> None:
        super().__init__(
            f"Ollama could not download {model}: {detail}",
            "Check the model's name (ollama.com/library), the network connection and the free "
            "disk space, then try again.",
        )
        self.model = model
        self.detail = detail


class BackendError(LLMError):
    """Ollama refused the request for another reason (out of memory, bad request…)."""

    code = "ollama_error"

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(
            f"Ollama refused the request (HTTP {status}): {detail}",
            "See the Ollama log; a smaller model or a smaller num_ctx may help.",
        )
        self.status = status
        self.detail = detail
