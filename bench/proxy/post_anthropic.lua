-- wrk script: POST an Anthropic Messages request with a short user message
-- (the shape of a coding agent's small calls); BENCH_MODEL picks tagged or not.
local model = os.getenv("BENCH_MODEL") or "bench"
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["anthropic-version"] = "2023-06-01"
wrk.headers["x-api-key"] = "sk-ant-bench"
wrk.body = '{"model":"' .. model .. '","max_tokens":256,"messages":[' ..
    '{"role":"user","content":"Route this: I want my money back."}]}'
