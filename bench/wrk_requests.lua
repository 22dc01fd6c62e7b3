-- wrk script: each thread (one connection) sends the requests of its own file, in order,
-- one at a time (the next only after the previous response), so the commands of a game
-- arrive in the order they were decided. With "cycle" the list repeats (reads);
-- without, a thread that runs out stops and says so.
--
-- File lines: METHOD <TAB> PATH <TAB> BEARER TOKEN (or -) <TAB> JSON BODY (or -).
-- wrk ... -s bench/wrk_requests.lua URL -- FOLDER [cycle|once] [THINK_MS]
-- THINK_MS: each connection waits that long before each request (a person thinking);
-- without it, a closed loop.

local threads = {}
local next_id = 0

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function init(args)
  folder = args[1]
  cycle = args[2] == "cycle"
  think = tonumber(args[3] or "0")
  requests = {}
  for line in io.lines(folder .. "/" .. id .. ".tsv") do
    local method, path, token, body = line:match("^([^\t]+)\t([^\t]+)\t([^\t]+)\t(.*)$")
    local headers = {}
    if token ~= "-" then headers["Authorization"] = "Bearer " .. token end
    if body == "-" then
      body = nil
    else
      headers["Content-Type"] = "application/json"
    end
    table.insert(requests, wrk.format(method, path, headers, body))
  end
  i = 0
  refused = 0
  exhausted = 0
  first_refusal = ""
end

function delay()
  return think
end

-- The next request is the first one not yet answered: wrk may ask for a request it does
-- not send (it does so once at the start), so only an answer moves on.
function request()
  if exhausted == 1 then
    return wrk.format("GET", "/readyz")  -- harmless, until the thread stops
  end
  return requests[i + 1]
end

function response(status, headers, body)
  if exhausted == 1 then
    return
  end
  i = i + 1
  if i == #requests then
    if cycle then
      i = 0
    else
      exhausted = 1
      wrk.thread:stop()
    end
  end
  if status >= 300 then
    refused = refused + 1
    if first_refusal == "" then first_refusal = status .. " " .. body:sub(1, 200) end
  end
end

function done(summary, latency, requests)
  local refused_total, exhausted_total, sample = 0, 0, ""
  for _, t in ipairs(threads) do
    refused_total = refused_total + t:get("refused")
    exhausted_total = exhausted_total + t:get("exhausted")
    local s = t:get("first_refusal")
    if sample == "" and s ~= "" then sample = s end
  end
  local e = summary.errors
  io.write(string.format(
    "RESULT %d %d %d %d %d %d %d %d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    refused_total, e.connect + e.read + e.write + e.timeout, exhausted_total, latency.max))
  io.write("SAMPLE " .. sample:gsub("\n", " ") .. "\n")
end
