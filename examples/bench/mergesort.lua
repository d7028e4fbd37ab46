-- Merge sort of integers into a scratch table: the twin of mergesort.cove,
-- indexed from 0 as the list is.
local n = tonumber(arg and arg[1]) or 100000

local function merge_sort(a, tmp, lo, hi)
  if hi - lo < 2 then return end
  local mid = math.floor((lo + hi) / 2)
  merge_sort(a, tmp, lo, mid)
  merge_sort(a, tmp, mid, hi)
  local i, j, k = lo, mid, lo
  while i < mid and j < hi do
    if a[i] <= a[j] then
      tmp[k] = a[i]
      i = i + 1
    else
      tmp[k] = a[j]
      j = j + 1
    end
    k = k + 1
  end
  while i < mid do
    tmp[k] = a[i]; i = i + 1; k = k + 1
  end
  while j < hi do
    tmp[k] = a[j]; j = j + 1; k = k + 1
  end
  for m = lo, hi - 1 do a[m] = tmp[m] end
end

local seed = 7
local check = 0
for _ = 1, 5 do
  local a, tmp = {}, {}
  for i = 0, n - 1 do
    seed = seed * 16807 % 2147483647
    a[i] = seed % 1000000
    tmp[i] = 0
  end
  merge_sort(a, tmp, 0, n)
  for i = 1, n - 1 do
    if a[i - 1] <= a[i] then check = check + 1 end
  end
  check = check + a[math.floor(n / 2)]
end
print(check)
