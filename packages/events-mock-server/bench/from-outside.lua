-- wrk script of from-outside.sh: POSTs the body file given after `--`, each request with its own event_ids (the
-- body's [<id>] replaced by run, thread and request number), and prints the run's figures as one line:
-- "requests/s non-2xx requests".
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

local before, after
local n = 0
function init(args)
  local f = assert(io.open(args[1], "rb"))
  local body = f:read("*a")
  f:close()
  local at = assert(body:find("[<id>]", 1, true), "the body holds no [<id>]")
  before, after = body:sub(1, at - 1), body:sub(at + 6)
  wrk.method = "POST"
  wrk.headers["content-type"] = "application/json"
  wrk.headers["authorization"] = "Bearer " .. args[2]
  run = args[3]
end

function request()
  n = n + 1
  -- Every occurrence of [<id>] gets the same fresh id; the events tell theirs apart by their own suffix.
  local id = run .. "-" .. tid .. "-" .. n
  local rest = after:gsub("%[<id>%]", id)
  return wrk.format(nil, nil, nil, before .. id .. rest)
end

function done(summary, latency, requests)
  local non2xx = summary.errors.status
  io.write(string.format("%.1f %d %d\n", summary.requests / (summary.duration / 1e6), non2xx, summary.requests))
end
