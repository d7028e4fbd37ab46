-- A task scheduler in the manner of Richards' benchmark: the twin of
-- richards.cove, in Lua's object style (a task is a table whose kind is a
-- string and whose state a table of its own; the scheduler a table with
-- methods). Tables are indexed from 0 where the Cove program's lists are.
-- It uses Lua 5.4's integer bit operators (the idle task's seed is shifted
-- and xor-ed, as the Cove program's is), so LuaJIT (whose bit operations are
-- the `bit` library's functions) does not run it and `cargo xtask bench-peers`
-- leaves it out of LuaJIT's column.
local count = tonumber(arg and arg[1]) or 100000

local IDLE, WORKER, HANDLER_A, HANDLER_B, DEVICE_A, DEVICE_B = 0, 1, 2, 3, 4, 5
local READY, WAITING, HELD = 1, 2, 3

local function new_packet(kind, owner)
  return { kind = kind, owner = owner, index = 0, datum = 0, data = { [0] = 0, 0, 0, 0 } }
end

local Scheduler = {}
Scheduler.__index = Scheduler

local function runnable(t)
  local state = t.state
  if state == READY then return true end
  if state == WAITING then return #t.queue > 0 end
  return false
end

function Scheduler.new(count)
  local s = setmetatable({ tasks = {}, order = { DEVICE_B, DEVICE_A, HANDLER_B, HANDLER_A, WORKER, IDLE },
    done = false, sent = 0, holds = 0, printed = 0 }, Scheduler)
  s:add(IDLE, READY, "idle", { count = count, seed = 1 })
  s:add(WORKER, WAITING, "worker", { dest = HANDLER_A, letter = 0 })
  s:add(HANDLER_A, WAITING, "handler", { work = {}, devices = {} })
  s:add(HANDLER_B, WAITING, "handler", { work = {}, devices = {} })
  s:add(DEVICE_A, WAITING, "device", { pending = nil })
  s:add(DEVICE_B, WAITING, "device", { pending = nil })
  for _ = 1, 2 do
    table.insert(s.tasks[WORKER].queue, new_packet("work", WORKER))
  end
  for _ = 1, 3 do
    table.insert(s.tasks[HANDLER_A].queue, new_packet("device", HANDLER_A))
    table.insert(s.tasks[HANDLER_B].queue, new_packet("device", HANDLER_B))
  end
  return s
end

function Scheduler:add(id, state, kind, data)
  self.tasks[id] = { id = id, state = state, queue = {}, kind = kind, data = data }
end

function Scheduler:send(p, to)
  self.sent = self.sent + 1
  local t = self.tasks[to]
  table.insert(t.queue, p)
  if t.state == WAITING then t.state = READY end
end

function Scheduler:release(id)
  local t = self.tasks[id]
  if t.state == HELD then t.state = READY end
end

function Scheduler:schedule()
  local order, tasks = self.order, self.tasks
  while not self.done do
    local picked = -1
    for _, id in ipairs(order) do
      if runnable(tasks[id]) then
        picked = id
        break
      end
    end
    local t = tasks[picked]
    t.state = READY
    local input = nil
    if #t.queue > 0 then input = table.remove(t.queue, 1) end
    self:run(t, input)
  end
end

function Scheduler:run(t, input)
  local kind = t.kind
  if kind == "idle" then
    local d = t.data
    d.count = d.count - 1
    if d.count == 0 then
      self.done = true
    elseif d.seed & 1 == 0 then
      d.seed = d.seed >> 1
      self:release(DEVICE_A)
    else
      d.seed = (d.seed >> 1) ~ 0xD008
      self:release(DEVICE_B)
    end
  elseif kind == "worker" then
    local w = t.data
    if input == nil then
      t.state = WAITING
    else
      local p = input
      w.dest = (w.dest == HANDLER_A) and HANDLER_B or HANDLER_A
      p.owner = w.dest
      p.index = 0
      for i = 0, 3 do
        w.letter = w.letter + 1
        if w.letter > 26 then w.letter = 1 end
        p.data[i] = w.letter
      end
      self:send(p, w.dest)
    end
  elseif kind == "handler" then
    local h = t.data
    if input ~= nil then
      if input.kind == "work" then
        table.insert(h.work, input)
      else
        table.insert(h.devices, input)
      end
    end
    if #h.work == 0 then
      t.state = WAITING
    else
      local w = h.work[1]
      if w.index >= 4 then
        table.remove(h.work, 1)
        self:send(w, WORKER)
      elseif #h.devices > 0 then
        local dev = table.remove(h.devices, 1)
        dev.datum = w.data[w.index]
        w.index = w.index + 1
        self:send(dev, (t.id == HANDLER_A) and DEVICE_A or DEVICE_B)
      else
        t.state = WAITING
      end
    end
  else -- device
    local d = t.data
    if input == nil then
      local p = d.pending
      if p == nil then
        t.state = WAITING
      else
        d.pending = nil
        self:send(p, p.owner)
      end
    else
      d.pending = input
      self.printed = (self.printed * 31 + input.datum + t.id) % 1000000007
      self.holds = self.holds + 1
      t.state = HELD
    end
  end
end

local s = Scheduler.new(count)
s:schedule()
print(s.sent .. " " .. s.holds .. " " .. s.printed)
