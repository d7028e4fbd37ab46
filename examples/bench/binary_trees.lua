-- Binary trees: allocation and collection of many small objects.
local function make(depth)
  if depth == 0 then return {} else return { make(depth - 1), make(depth - 1) } end
end

local function check(t)
  if t[1] then return 1 + check(t[1]) + check(t[2]) else return 1 end
end

local max_depth = tonumber(arg and arg[1]) or 14
print("stretch " .. check(make(max_depth + 1)))
local long_lived = make(max_depth)
local depth = 4
while depth <= max_depth do
  local iterations = math.floor(2 ^ (max_depth - depth + 4))
  local total = 0
  for i = 0, iterations - 1 do
    total = total + check(make(depth))
  end
  print(iterations .. " trees of depth " .. depth .. " check " .. total)
  depth = depth + 2
end
print("long lived " .. check(long_lived))
