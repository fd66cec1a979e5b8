"""weld.run against the project's fake model server (tests/fake_model):
success, the envelope, pydantic, the exit codes as exceptions, the GIL
released while waiting, Ctrl-C (docs/python.md, "Running a model")."""

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import weld

SCHEMA = {
    "type": "object",
    "properties": {"summary": {"type": "string"}, "risk": {"enum": ["low", "high"]}},
    "required": ["summary", "risk"],
}


def answer(arguments, **extra):
    return {"tool_calls": [{"name": "structured_output", "arguments": arguments}], **extra}


pytestmark = pytest.mark.usefixtures("clean_environment")


def test_a_valid_answer(fake_model):
    server = fake_model([answer({"summary": "fine", "risk": "low"})])
    result = weld.run("Assess this change", SCHEMA, base_url=server.url, model="fake-model")
    assert result["structured_output"] == {"summary": "fine", "risk": "low"}
    assert result["is_error"] is False and result["subtype"] == "success"
    assert result["attempts"] == 1 and result["num_turns"] == 1
    assert result["usage"]["input_tokens"] == 11 and result["usage"]["output_tokens"] == 7
    [request] = server.requests()
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "fake-model"
    assert request["body"]["messages"][-1]["content"] == "Assess this change"
    tool = request["body"]["tools"][0]["function"]
    assert tool["name"] == "structured_output" and tool["parameters"] == SCHEMA


def test_retries_and_repairs(fake_model):
    server = fake_model([
        answer({"summary": "x", "risk": "medium"}),  # invalid: retried with the error
        answer('```json\n{"summary": "y", "risk": "high",}\n```'),  # repaired
    ])
    result = weld.run("Assess", SCHEMA, base_url=server.url, model="fake-model")
    assert result["structured_output"] == {"summary": "y", "risk": "high"}
    assert result["attempts"] == 2
    assert {r["kind"] for r in result["repairs"]} == {"code_fence", "trailing_comma"}
    second = server.requests()[1]["body"]["messages"]
    assert "must be equal to one of the allowed values" in second[-1]["content"]


def test_the_model_is_listed_when_not_named(fake_model, caplog):
    server = fake_model({"responses": [answer({"summary": "a", "risk": "low"})], "models": ["only-one"]})
    result = weld.run("Assess", SCHEMA, base_url=server.url)
    assert result["structured_output"]["risk"] == "low"
    assert server.requests()[-1]["body"]["model"] == "only-one"
    assert any("the only model" in record.message and "only-one" in record.message for record in caplog.records)


def test_settings_from_the_environment(fake_model, monkeypatch):
    server = fake_model([answer({"summary": "e", "risk": "low"})])
    monkeypatch.setenv("WELD_BASE_URL", server.url)
    monkeypatch.setenv("WELD_MODEL", "from-env")
    assert weld.run("Assess", SCHEMA)["structured_output"]["summary"] == "e"
    assert server.requests()[0]["body"]["model"] == "from-env"


def test_a_pydantic_model_comes_back_as_an_instance(fake_model):
    pydantic = pytest.importorskip("pydantic")

    class Assessment(pydantic.BaseModel):
        summary: str
        risk: str

    server = fake_model([answer({"summary": "ok", "risk": "low"})])
    result = weld.run("Assess", Assessment, base_url=server.url, model="m")
    assert isinstance(result["structured_output"], Assessment)
    assert result["structured_output"].risk == "low"
    assert result["structured_result"] == {"summary": "ok", "risk": "low"}


def test_nothing_configured_is_a_config_error():
    # No silent offline model: with no provider, key or base URL anywhere,
    # nothing is sent and the run ends with 52.
    with pytest.raises(weld.ConfigError) as caught:
        weld.run("Assess", SCHEMA)
    assert caught.value.exit_code == 52
    assert "no model provider configured" in str(caught.value)
    assert "offline" in str(caught.value)  # it says how to try without a model
    # The settings by their keywords, not by the command's flags.
    assert "Choose one: provider=openai" in str(caught.value)
    assert "pass provider=offline" in str(caught.value)
    assert "--" not in str(caught.value)


def test_an_unknown_provider_is_a_config_error():
    with pytest.raises(weld.ConfigError) as caught:
        weld.run("Assess", SCHEMA, provider="nope")
    assert caught.value.exit_code == 52
    assert isinstance(caught.value, weld.RunError)
    assert caught.value.result["is_error"] is True
    assert "nope" in str(caught.value)


def test_nothing_configured_is_a_config_error_never_the_offline_model():
    # No provider, model, base URL or key anywhere: the library refuses as
    # `weld` does (52, saying how to choose) instead of answering from the
    # offline model.
    with pytest.raises(weld.ConfigError) as caught:
        weld.run("Assess", SCHEMA)
    assert caught.value.exit_code == 52
    assert "no model provider configured" in str(caught.value)
    assert "offline" in str(caught.value)
    assert caught.value.result["is_error"] is True


def test_a_models_list_that_cannot_be_reached_is_retry_later(fake_model):
    # No model named and nothing listening: a server still starting, worth
    # another try later (75), not a configuration error (52).
    server = fake_model([])
    url = server.url
    server.stop()
    with pytest.raises(weld.RetryLater) as caught:
        weld.run("Assess", SCHEMA, base_url=url, max_retries=0, connect_timeout=2)
    assert caught.value.exit_code == 75
    assert "models list could not be read" in str(caught.value)


def test_a_models_list_answering_503_while_loading_is_retried(fake_model):
    server = fake_model({"responses": [answer({"summary": "up", "risk": "low"})], "models": ["late"],
                         "models_errors": [503]})
    result = weld.run("Assess", SCHEMA, base_url=server.url, max_retries=2)
    assert result["structured_output"] == {"summary": "up", "risk": "low"}
    requests = server.requests()
    assert [r["path"] for r in requests] == ["/v1/models", "/v1/models", "/v1/chat/completions"]
    assert requests[-1]["body"]["model"] == "late"


def test_a_models_list_naming_several_is_a_config_error(fake_model):
    server = fake_model({"responses": [], "models": ["a", "b"]})
    with pytest.raises(weld.ConfigError) as caught:
        weld.run("Assess", SCHEMA, base_url=server.url)
    assert caught.value.exit_code == 52
    assert "lists 2 models (a, b)" in str(caught.value)
    assert "pass model with one of them" in str(caught.value)
    assert [r["path"] for r in server.requests()] == ["/v1/models"]


def test_unreachable_server_is_retry_later(fake_model):
    server = fake_model([])
    url = server.url
    server.stop()
    with pytest.raises(weld.RetryLater) as caught:
        weld.run("Assess", SCHEMA, base_url=url, model="m", max_retries=0, connect_timeout=2)
    assert caught.value.exit_code == 75
    assert caught.value.result["subtype"] != "success"


def test_server_errors_after_retries_are_retry_later(fake_model):
    server = fake_model({"responses": [{"status": 503}], "repeat_last": True})
    with pytest.raises(weld.RetryLater, match="503"):
        weld.run("Assess", SCHEMA, base_url=server.url, model="m", max_retries=1)
    assert len(server.requests()) == 2


def test_refused_credentials_are_an_auth_error(fake_model):
    server = fake_model([{"status": 401}])
    with pytest.raises(weld.AuthError) as caught:
        weld.run("Assess", SCHEMA, base_url=server.url, model="m", api_key="sk-test-secret")
    assert caught.value.exit_code == 41
    assert "sk-test-secret" not in str(caught.value) and "sk-test-secret" not in repr(caught.value.result)
    assert server.requests()[0]["headers"]["authorization"] == "Bearer sk-test-secret"


def test_structured_retries_exhausted_is_run_failed(fake_model):
    server = fake_model({"responses": [answer({"summary": 1})], "repeat_last": True})
    with pytest.raises(weld.RunFailed) as caught:
        weld.run("Assess", SCHEMA, base_url=server.url, model="m", max_structured_retries=1)
    assert caught.value.exit_code == 1
    assert "max_structured_retries=1 allows 1 retry." in str(caught.value)
    assert caught.value.result["last_candidate"] == {"summary": 1}
    assert caught.value.result["attempts"] == 2


def test_the_turn_limit_is_max_turns_reached(fake_model):
    server = fake_model({"responses": [answer({"summary": 1})], "repeat_last": True})
    with pytest.raises(weld.MaxTurnsReached) as caught:
        weld.run("Assess", SCHEMA, base_url=server.url, model="m", max_session_turns=1)
    assert caught.value.exit_code == 53
    assert "Reached max session turns (1). Increase max_session_turns to allow more." in str(caught.value)
    # The note names the schema argument; Python's runs offer no tools, so
    # there is no tool setting to check.
    assert str(caught.value).endswith("\nNote: schema is active. If the model never called structured_output, "
                                      "verify that the schema is satisfiable.")


def test_plain_text_names_the_schema_argument(fake_model):
    server = fake_model([{"text": "prose"}])
    with pytest.raises(weld.RunFailed) as caught:
        weld.run("Assess", SCHEMA, base_url=server.url, model="m")
    assert str(caught.value) == ("Model produced plain text instead of calling the structured_output tool as "
                                 "required by schema after 1 turn(s). Output preview (5 chars): \"prose\".")


def test_an_answer_over_max_response_bytes_names_the_keyword(fake_model):
    server = fake_model({"responses": [answer({"summary": "x" * 4000, "risk": "low"})], "repeat_last": True})
    with pytest.raises(weld.RunError) as caught:
        weld.run("Assess", SCHEMA, base_url=server.url, model="m", max_response_bytes="1K", max_retries=0)
    assert ("the server sent more than 1 KiB in one response (the cap, max_response_bytes or "
            "WELD_MAX_RESPONSE_BYTES); stopped reading") in str(caught.value)
    result = weld.run("Assess", SCHEMA, base_url=server.url, model="m", max_response_bytes=1 << 20)
    assert result["structured_output"]["risk"] == "low"
    with pytest.raises(ValueError, match="max_response_bytes must be a number of bytes from 1024 to 1T"):
        weld.run("Assess", SCHEMA, base_url=server.url, model="m", max_response_bytes=10)
    with pytest.raises(TypeError, match="max_response_bytes must be an int, a str or None"):
        weld.run("Assess", SCHEMA, base_url=server.url, model="m", max_response_bytes=1.5)


def test_a_schema_that_is_not_valid():
    with pytest.raises(weld.SchemaError, match="type"):
        weld.run("Assess", {"type": "objekt"}, provider="offline")
    with pytest.raises(weld.SchemaError, match="object"):
        weld.run("Assess", {"type": "string"}, provider="offline")


def test_a_models_list_that_cannot_be_had_is_retry_later(fake_model):
    server = fake_model({"responses": [], "models_errors": [503, 503, 503, 503, 503, 503]})
    with pytest.raises(weld.RetryLater):
        weld.run("Assess", SCHEMA, base_url=server.url, max_retries=0)


def test_the_offline_model_without_a_schema_says_what_it_is():
    result = weld.run("Hello", provider="offline")
    assert result["result"] == ("This is weld's offline model (provider=offline). It is not a language model: it "
                                "only answers schema runs, with an instance sampled from the schema.")


def test_the_offline_model_only_when_named(caplog):
    result = weld.run("Assess", SCHEMA, provider="offline", seed=3)
    assert weld.validator_for(SCHEMA).is_valid(result["structured_output"])
    assert any("offline model" in record.message for record in caplog.records)


def test_runs_in_threads_wait_together(fake_model):
    # Each answer takes 400 ms: eight runs in eight threads take about that
    # long, not 3.2 s, because the GIL is released while they wait.
    server = fake_model({"responses": [answer({"summary": "t", "risk": "low"}, delay_ms=400)], "repeat_last": True})
    started = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda i: weld.run(f"row {i}", SCHEMA, base_url=server.url, model="m"), range(8)))
    elapsed = time.monotonic() - started
    assert all(r["structured_output"]["summary"] == "t" for r in results)
    assert elapsed < 2.0, elapsed


def test_ctrl_c_cancels_the_run(fake_model):
    server = fake_model([{"hang": True}])
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        weld.run("Assess", SCHEMA, base_url=server.url, model="m")
    assert time.monotonic() - started < 5
    timer.join()
