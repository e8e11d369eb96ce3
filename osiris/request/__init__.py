"""The person's request: scrubbed of secrets before it is stored or sent to the LLM."""

from osiris.request.scrub import ScrubbedRequest, scrub_request

__all__ = ["ScrubbedRequest", "scrub_request"]
