"""The LLM judge's connection: paper 000's Figure 24 prompt sent through the ``openai``
client to any OpenAI-compatible endpoint described by a RunConfig.

The key is resolved when the judge is made (environment variable or keyring,
see reviewer.rerun.secrets) and lives only inside the client.
"""

from __future__ import annotations

import openai

from reviewer.errors import ReviewerError
from reviewer.rerun.config import RunConfig
from reviewer.rerun.secrets import resolve_api_key, scrub
from reviewer.scoring.judge import ChatFn


def openai_judge(config: RunConfig) -> ChatFn:
    """A ``ChatFn`` for reviewer.scoring.judge: messages in, reply text out.

    Uses the config's model, temperature, max tokens, timeout and retries (the
    client's own retry with backoff on 429/5xx). A failed call raises
    ReviewerError with the key scrubbed from the message.
    """
    key = resolve_api_key(config)
    client = openai.OpenAI(base_url=config.base_url, api_key=key, max_retries=config.retries,
                           timeout=config.timeout)

    def ask(messages: list[dict]) -> str:
        try:
            response = client.chat.completions.create(
                model=config.model, messages=messages, **config.generation_params())
        except openai.OpenAIError as exc:
            raise ReviewerError(f"the judge at {config.base_url} failed: {scrub(str(exc), key)}") from None
        return (response.choices[0].message.content or "") if response.choices else ""

    return ask
