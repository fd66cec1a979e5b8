-- wrk script: POST an OpenAI chat request; BENCH_MODEL picks tagged or not.
local model = os.getenv("BENCH_MODEL") or "bench"
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"' .. model .. '","messages":[{"role":"user","content":"Route this: I want my money back."}]}'
