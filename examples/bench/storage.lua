-- A tree of tables built and dropped: the twin of storage.cove.
local rounds = tonumber(arg and arg[1]) or 150

local function next_random(seed)
  seed[1] = (seed[1] * 1309 + 13849) % 65536
  return seed[1]
end

local function build(depth, seed, count)
  count[1] = count[1] + 1
  if depth == 1 then
    local leaf = {}
    for i = 1, next_random(seed) % 10 + 1 do leaf[i] = 0 end
    return leaf
  end
  local children = {}
  for i = 1, 4 do children[i] = build(depth - 1, seed, count) end
  return children
end

local total = 0
for _ = 1, rounds do
  local seed = { 74755 }
  local count = { 0 }
  local tree = build(7, seed, count)
  total = total + count[1] + #tree - 4
end
print(total)
