-- wrk script for bench/load-generator.ts: POSTs one JSON-RPC body with a bearer token, and prints
-- the run's figures as one JSON line that the bench parses.
--
-- Environment (set by load-generator.ts):
--   WRK_RPC_BODY     the request body; every __N__ in it becomes a request counter, unique across
--                    the run's threads (so each publish carries its own id and payload)
--   WRK_RPC_TOKEN    the bearer token
--   WRK_RPC_THREADS  wrk's -t, to space the threads' counters apart

local template = os.getenv("WRK_RPC_BODY")
local stride = tonumber(os.getenv("WRK_RPC_THREADS")) or 1

wrk.method = "POST"
wrk.body = template
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("WRK_RPC_TOKEN")

local next_thread = 0
function setup(thread)
  thread:set("thread_index", next_thread)
  next_thread = next_thread + 1
end

-- The template split at its placeholders; with none, wrk sends one prepared request over and over
-- (no request() global), which costs the load generator least.
local parts = {}
local from = 1
while true do
  local at = string.find(template, "__N__", from, true)
  if not at then break end
  table.insert(parts, string.sub(template, from, at - 1))
  from = at + 5
end

if #parts > 0 then
  table.insert(parts, string.sub(template, from))
  local counter = nil
  local pieces = {}
  function request()
    counter = (counter or (thread_index or 0) + 1 - stride) + stride
    local n = tostring(counter)
    for i = 1, #parts - 1 do
      pieces[2 * i - 1] = parts[i]
      pieces[2 * i] = n
    end
    pieces[2 * #parts - 1] = parts[#parts]
    return wrk.format(nil, nil, nil, table.concat(pieces))
  end
end

-- Latency figures are microseconds; `non2xx` is wrk's count of statuses above 399 (the server
-- sends no 1xx or 3xx on /v1/rpc).
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"mean_us":%.1f,"max_us":%d,' ..
      '"connect_errors":%d,"read_errors":%d,"write_errors":%d,"timeouts":%d,"non2xx":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.mean, latency.max,
    e.connect, e.read, e.write, e.timeout, e.status))
end
