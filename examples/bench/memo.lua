-- A memo in a table: the twin of memo.cove.
local n = tonumber(arg and arg[1]) or 300000

local memo = {}
local count = 0
local function chain(k)
  if k == 1 then return 1 end
  local length = memo[k]
  if length then return length end
  local next
  if k % 2 == 0 then next = math.floor(k / 2) else next = 3 * k + 1 end
  length = chain(next) + 1
  memo[k] = length
  count = count + 1
  return length
end

local best, longest = 0, 0
for i = 1, n - 1 do
  local length = chain(i)
  if length > longest then
    longest = length
    best = i
  end
end
print(string.format("%d %d %d", best, longest, count))
