-- Permutations by swapping in place: the twin of permute.cove.
local rounds = tonumber(arg and arg[1]) or 1000

local function swap(v, i, j)
  local t = v[i]
  v[i] = v[j]
  v[j] = t
end

local function permute(n, v)
  local count = 1
  if n ~= 0 then
    local n1 = n - 1
    count = count + permute(n1, v)
    local i = n1
    while i >= 0 do
      swap(v, n1, i)
      count = count + permute(n1, v)
      swap(v, n1, i)
      i = i - 1
    end
  end
  return count
end

local total = 0
for _ = 1, rounds do
  local v = {}
  for k = 0, 5 do v[k] = 0 end
  total = total + permute(6, v)
end
print(total)
