-- wrk script: as post.lua, but each connection pauses PACE_MS (default 10)
-- between requests, so the machine is not saturated and the latency a
-- proxy adds is its own work rather than queueing behind a full CPU.
local model = os.getenv("BENCH_MODEL") or "bench"
local pace = tonumber(os.getenv("PACE_MS") or "10")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"' .. model .. '","messages":[{"role":"user","content":"Route this: I want my money back."}]}'
function delay()
  return pace
end
