-- Heapsort of floats in a table: the twin of heapsort.cove, indexed from
-- 0 as the list is.
local n = tonumber(arg and arg[1]) or 20000

local function sift_down(a, start, stop)
  local root = start
  while true do
    local child = 2 * root + 1
    if child > stop then break end
    if child + 1 <= stop and a[child] < a[child + 1] then
      child = child + 1
    end
    if a[root] < a[child] then
      local t = a[root]
      a[root] = a[child]
      a[child] = t
      root = child
    else
      break
    end
  end
end

local function heapsort(a, count)
  local start = math.floor((count - 2) / 2)
  while start >= 0 do
    sift_down(a, start, count - 1)
    start = start - 1
  end
  local stop = count - 1
  while stop > 0 do
    local t = a[stop]
    a[stop] = a[0]
    a[0] = t
    stop = stop - 1
    sift_down(a, 0, stop)
  end
end

local seed = 42
local ordered, low, high = 0, 0.0, 0.0
for _ = 1, 10 do
  local a = {}
  for i = 0, n - 1 do
    seed = seed * 16807 % 2147483647
    a[i] = seed / 2147483647.0
  end
  heapsort(a, n)
  for i = 1, n - 1 do
    if a[i - 1] <= a[i] then ordered = ordered + 1 end
  end
  low = low + a[0]
  high = high + a[n - 1]
end
print(string.format("%d %.6f %.6f", ordered, low, high))
