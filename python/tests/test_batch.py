"""weld.batch against the project's fake model server: rows from a
generator, a JSON Lines file and a pandas DataFrame; concurrency; resume
after the iterator is closed half way; errored rows; a stop on a temporary
failure (docs/python.md, "Batches")."""

import json

import pytest

import weld

SCHEMA = {"type": "object", "properties": {"label": {"enum": ["spam", "ham"]}}, "required": ["label"]}

pytestmark = pytest.mark.usefixtures("clean_environment")


def answer(arguments, **extra):
    return {"tool_calls": [{"name": "structured_output", "arguments": arguments}], **extra}


def rows(count):
    for i in range(count):
        yield {"id": f"r{i}", "text": f"message {i}"}


def test_a_thousand_rows_from_a_generator(fake_model):
    server = fake_model({"responses": [answer({"label": "ham"}, delay_ms=5)], "repeat_last": True})
    results = list(weld.batch(rows(1000), SCHEMA, prompt="Classify this message", base_url=server.url, model="m",
                              concurrency=16))
    assert len(results) == 1000
    assert sorted(r["custom_id"] for r in results) == sorted(f"r{i}" for i in range(1000))
    assert all(r["status"] == "succeeded" and r["structured_result"] == {"label": "ham"} for r in results)
    requests = server.requests()
    assert len(requests) == 1000
    first = json.loads(requests[0]["body"]["messages"][-1]["content"].split("\n\n")[0])
    assert first["text"].startswith("message ")
    assert all(r["body"]["messages"][-1]["content"].endswith("\n\nClassify this message") for r in requests)


def test_resume_after_closing_half_way(fake_model, tmp_path):
    server = fake_model({"responses": [answer({"label": "spam"}, delay_ms=5)], "repeat_last": True})
    output = tmp_path / "out.jsonl"
    first_run = weld.batch(rows(200), SCHEMA, prompt="Classify", base_url=server.url, model="m", concurrency=16,
                           output=output)
    seen = set()
    for result in first_run:
        seen.add(result["custom_id"])
        if len(seen) == 60:
            break
    first_run.close()  # the rows in flight are cancelled: no line, the rerun does them
    in_file = [json.loads(line) for line in output.read_text().splitlines()]
    assert 60 <= len(in_file) < 200
    assert seen <= {line["custom_id"] for line in in_file}
    # The same call again: only the rows the file does not answer run.
    rest = list(weld.batch(rows(200), SCHEMA, prompt="Classify", base_url=server.url, model="m", concurrency=16,
                           output=output))
    assert {r["custom_id"] for r in rest}.isdisjoint({line["custom_id"] for line in in_file})
    final = [json.loads(line) for line in output.read_text().splitlines()]
    assert sorted(line["custom_id"] for line in final) == sorted(f"r{i}" for i in range(200))
    assert len(rest) == 200 - len(in_file)
    # Every row asked once, the cancelled ones twice at most.
    assert 200 <= len(server.requests()) <= 200 + 16


def test_errored_rows_are_yielded(fake_model):
    server = fake_model([answer({"label": "ham"}), answer({"label": "maybe"}), answer({"label": "spam"})])
    results = list(weld.batch([{"id": "a"}, {"id": "b"}, {"id": "c"}], SCHEMA, prompt="Classify",
                              base_url=server.url, model="m", concurrency=1, max_structured_retries=0))
    by_id = {r["custom_id"]: r for r in results}
    assert by_id["a"]["structured_result"] == {"label": "ham"}
    assert by_id["b"]["status"] == "errored"
    assert by_id["b"]["error"]["type"] == "error_max_structured_output_retries"
    assert by_id["b"]["last_candidate"] == {"label": "maybe"}
    assert by_id["c"]["structured_result"] == {"label": "spam"}


def test_messages_name_the_keywords(tmp_path):
    # A line's own tools, a bad id field: the errored lines name weld.batch's
    # schema argument and keywords, not the command's flags.
    request = {"custom_id": "t", "body": {"messages": [{"role": "user", "content": "q"}],
                                           "tools": [{"type": "function", "function": {"name": "f"}}]}}
    results = {r["custom_id"]: r for r in weld.batch([request, {"ticket": True}], SCHEMA, provider="offline",
                                                      id_field="ticket")}
    assert results["t"]["error"]["message"] == (
        "line 1: body.tools: the line offers tools of its own, which weld batch does not run (each row gets the "
        "structured_output contract only); remove them from the line")
    [bad_id] = [r for r in results.values() if r["custom_id"] != "t"]
    assert bad_id["error"]["message"] == "line 2: ticket: must be a non-empty string or a whole number (the id_field)"
    # A result file of the other format is not resumed.
    output = tmp_path / "out.jsonl"
    list(weld.batch([{"id": "a"}], SCHEMA, provider="offline", output=output, output_format="openai"))
    with pytest.raises(weld.ConfigError) as caught:
        weld.batch([{"id": "a"}], SCHEMA, provider="offline", output=output)
    assert str(caught.value) == (
        f'output="{output}" holds result lines of output_format=openai (line 1); this run writes '
        "output_format=weld. Resume it with output_format=openai, or write to another output.")


def test_a_row_that_is_not_an_object_is_an_errored_line(fake_model):
    server = fake_model({"responses": [answer({"label": "ham"})], "repeat_last": True})
    results = list(weld.batch([{"id": "ok"}, [1, 2]], SCHEMA, prompt="Classify", base_url=server.url, model="m"))
    statuses = sorted((r["status"], r.get("error", {}).get("type", "")) for r in results)
    assert statuses == [("errored", "error_invalid_input"), ("succeeded", "")]


def test_a_temporary_failure_stops_the_batch(fake_model):
    server = fake_model({"responses": [{"status": 503}], "repeat_last": True})
    iterator = weld.batch(rows(50), SCHEMA, prompt="Classify", base_url=server.url, model="m", max_retries=0,
                          concurrency=4)
    with pytest.raises(weld.RetryLater) as caught:
        list(iterator)
    assert caught.value.exit_code == 75
    assert "503" in str(caught.value)


def test_nothing_configured_is_a_config_error_before_any_row():
    with pytest.raises(weld.ConfigError) as caught:
        list(weld.batch(rows(3), SCHEMA, prompt="Classify"))
    assert caught.value.exit_code == 52
    assert "no model provider configured" in str(caught.value)


def test_a_models_list_that_cannot_be_reached_is_retry_later(fake_model):
    server = fake_model([])
    url = server.url
    server.stop()
    with pytest.raises(weld.RetryLater) as caught:
        list(weld.batch(rows(3), SCHEMA, prompt="Classify", base_url=url, max_retries=0, connect_timeout=2))
    assert caught.value.exit_code == 75


def test_the_rows_iterator_raising(fake_model):
    server = fake_model({"responses": [answer({"label": "ham"})], "repeat_last": True})

    def broken():
        yield {"id": "one"}
        raise RuntimeError("the database went away")

    with pytest.raises(RuntimeError, match="the database went away"):
        list(weld.batch(broken(), SCHEMA, prompt="Classify", base_url=server.url, model="m", concurrency=1))


def test_rows_from_a_jsonl_file(fake_model, tmp_path):
    server = fake_model({"responses": [answer({"label": "spam"})], "repeat_last": True})
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"ticket": f"t{i}", "body": "x"}) + "\n" for i in range(5)))
    results = list(weld.batch(path, SCHEMA, prompt="Classify", id_field="ticket", base_url=server.url, model="m"))
    assert sorted(r["custom_id"] for r in results) == ["t0", "t1", "t2", "t3", "t4"]
    assert list(weld.batch(str(path), SCHEMA, prompt="Classify", id_field="ticket", base_url=server.url, model="m"))


def test_a_dataframe_and_a_pydantic_model(fake_model):
    pandas = pytest.importorskip("pandas")
    pydantic = pytest.importorskip("pydantic")

    class Label(pydantic.BaseModel):
        label: str

    server = fake_model({"responses": [answer({"label": "ham"})], "repeat_last": True})
    frame = pandas.DataFrame({"id": ["m1", "m2", "m3"], "text": ["hi", None, "lunch?"], "score": [1.5, float("nan"), 3]})
    results = list(weld.batch(frame, Label, prompt="Classify", base_url=server.url, model="m"))
    assert len(results) == 3
    assert all(isinstance(r["structured_result"], Label) for r in results)
    labelled = frame.assign(label=frame["id"].map({r["custom_id"]: r["structured_result"].label for r in results}))
    assert list(labelled["label"]) == ["ham", "ham", "ham"]
    # The rows as sent: the DataFrame's missing values are null, its numbers numbers.
    sent = sorted(json.loads(r["body"]["messages"][-1]["content"].split("\n\n")[0])["id"] for r in server.requests())
    assert sent == ["m1", "m2", "m3"]
    rows_sent = {json.loads(r["body"]["messages"][-1]["content"].split("\n\n")[0])["id"]:
                 json.loads(r["body"]["messages"][-1]["content"].split("\n\n")[0]) for r in server.requests()}
    assert rows_sent["m2"] == {"id": "m2", "text": None, "score": None}
    assert rows_sent["m3"]["score"] == 3.0


def test_nothing_configured_stops_before_any_row():
    with pytest.raises(weld.ConfigError, match="no model provider configured"):
        weld.batch(rows(3), SCHEMA, prompt="Classify")


def test_bad_arguments():
    with pytest.raises(ValueError, match="concurrency must be a whole number from 1 to 1024"):
        weld.batch([], SCHEMA, concurrency=0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        weld.batch([], SCHEMA, provider="offline", colour="red")
    with pytest.raises(weld.SchemaError):
        weld.batch([], {"type": "string"}, provider="offline")
