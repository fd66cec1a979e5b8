-- wrk script: POST an OpenAI chat request; BENCH_MODEL picks tagged or not.
-- HISTORY=N puts N earlier turns of MSG_LEN characters (default 500) before
-- the question, for the cost of a long conversation (a coding agent's).
local model = os.getenv("BENCH_MODEL") or "bench"
local history = tonumber(os.getenv("HISTORY") or "0")
local msg_len = tonumber(os.getenv("MSG_LEN") or "500")
local turns = {}
local text = string.rep("The customer wrote about an order and a refund. ", math.ceil(msg_len / 48)):sub(1, msg_len)
for i = 1, history do
  turns[#turns + 1] = '{"role":"' .. ((i % 2 == 1) and "user" or "assistant") .. '","content":"' .. text .. '"},'
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"' .. model .. '","messages":[' .. table.concat(turns) ..
    '{"role":"user","content":"Route this: I want my money back."}]}'
