-- Sorting in place: the twin of sorting.cove (indexed from 0, as the Cove
-- program is, since the algorithms' index arithmetic is part of the work).
local n = tonumber(arg and arg[1]) or 200000

local function numbers(n)
  local xs = {}
  local last = 42
  for i = 0, n - 1 do
    last = (last * 3877 + 29573) % 139968
    xs[i] = last
  end
  return xs
end

local function quicksort(xs, lo, hi)
  if lo >= hi then
    return
  end
  local pivot = xs[math.floor((lo + hi) / 2)]
  local i = lo
  local j = hi
  while i <= j do
    while xs[i] < pivot do
      i = i + 1
    end
    while xs[j] > pivot do
      j = j - 1
    end
    if i <= j then
      local t = xs[i]
      xs[i] = xs[j]
      xs[j] = t
      i = i + 1
      j = j - 1
    end
  end
  quicksort(xs, lo, j)
  quicksort(xs, i, hi)
end

local function sift_down(xs, start, stop)
  local root = start
  local child = root * 2 + 1
  while child <= stop do
    if child + 1 <= stop and xs[child] < xs[child + 1] then
      child = child + 1
    end
    if xs[root] < xs[child] then
      local t = xs[root]
      xs[root] = xs[child]
      xs[child] = t
      root = child
      child = root * 2 + 1
    else
      return
    end
  end
end

local function heapsort(xs, n)
  local start = math.floor((n - 2) / 2)
  while start >= 0 do
    sift_down(xs, start, n - 1)
    start = start - 1
  end
  local stop = n - 1
  while stop > 0 do
    local t = xs[0]
    xs[0] = xs[stop]
    xs[stop] = t
    stop = stop - 1
    sift_down(xs, 0, stop)
  end
end

local function checksum(xs, n)
  local sum = 0
  for i = 0, n - 1 do
    sum = (sum * 31 + xs[i]) % 1000000007
  end
  return sum
end

local a = numbers(n)
quicksort(a, 0, n - 1)
print(checksum(a, n))
local b = numbers(n)
heapsort(b, n)
print(checksum(b, n))
