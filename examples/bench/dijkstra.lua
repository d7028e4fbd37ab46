-- Shortest paths on a grid: the twin of dijkstra.cove (a heap entry is a
-- table { distance, cell }; the grid's tables are indexed from 0).
local w = tonumber(arg and arg[1]) or 550

local Heap = {}
Heap.__index = Heap

function Heap.new()
  return setmetatable({ items = {}, n = 0, pushes = 0 }, Heap)
end

function Heap:push(item)
  self.pushes = self.pushes + 1
  local xs = self.items
  self.n = self.n + 1
  local i = self.n
  xs[i] = item
  while i > 1 do
    local parent = math.floor(i / 2)
    if xs[parent][1] <= xs[i][1] then break end
    xs[parent], xs[i] = xs[i], xs[parent]
    i = parent
  end
end

function Heap:pop()
  local xs = self.items
  local n = self.n
  if n == 0 then return nil end
  local top = xs[1]
  local last = xs[n]
  xs[n] = nil
  self.n = n - 1
  if n > 1 then
    xs[1] = last
    local size = n - 1
    local i = 1
    while true do
      local l = 2 * i
      if l > size then break end
      local c = l
      if l + 1 <= size and xs[l + 1][1] < xs[l][1] then c = l + 1 end
      if xs[i][1] <= xs[c][1] then break end
      xs[c], xs[i] = xs[i], xs[c]
      i = c
    end
  end
  return top
end

local cost = {}
local last = 42
for i = 0, w * w - 1 do
  last = (last * 3877 + 29573) % 139968
  cost[i] = last % 100
end
local inf = math.maxinteger or math.huge -- LuaJIT has no math.maxinteger
local dist = {}
for i = 0, w * w - 1 do dist[i] = inf end
local heap = Heap.new()
dist[0] = 0
heap:push({ 0, 0 })
local dx = { 1, -1, 0, 0 }
local dy = { 0, 0, 1, -1 }
while true do
  local item = heap:pop()
  if item == nil then break end
  local d, cell = item[1], item[2]
  if d <= dist[cell] then
    local x = cell % w
    local y = math.floor(cell / w)
    for k = 1, 4 do
      local nx = x + dx[k]
      local ny = y + dy[k]
      if nx >= 0 and nx < w and ny >= 0 and ny < w then
        local next = ny * w + nx
        local nd = d + 1 + (cost[cell] * 7 + cost[next] * 3) % 10
        if nd < dist[next] then
          dist[next] = nd
          heap:push({ nd, next })
        end
      end
    end
  end
end
local checksum = 0
for i = 0, w * w - 1 do
  checksum = (checksum * 31 + dist[i]) % 1000000007
end
print(dist[w * w - 1] .. " " .. checksum .. " " .. heap.pushes)
