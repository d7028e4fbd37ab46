-- A backtracking sudoku solver over a flat table: the twin of sudoku.cove
-- (indexed from 0, as the Cove program is, so the arithmetic matches).
local rounds = tonumber(arg and arg[1]) or 40

local function fits(g, pos, v)
  local r = math.floor(pos / 9)
  local c = pos % 9
  for i = 0, 8 do
    if g[r * 9 + i] == v or g[i * 9 + c] == v then return false end
  end
  local br = r - r % 3
  local bc = c - c % 3
  for i = 0, 2 do
    for j = 0, 2 do
      if g[(br + i) * 9 + bc + j] == v then return false end
    end
  end
  return true
end

local function solve(g, pos, tries)
  local p = pos
  while p < 81 and g[p] ~= 0 do p = p + 1 end
  if p == 81 then return true end
  for v = 1, 9 do
    tries[1] = tries[1] + 1
    if fits(g, p, v) then
      g[p] = v
      if solve(g, p + 1, tries) then return true end
      g[p] = 0
    end
  end
  return false
end

local function grid(puzzle)
  local g = {}
  for i = 0, 80 do g[i] = puzzle:byte(i + 1) - 48 end
  return g
end

local puzzles = {
  "530070000600195000098000060800060003400803001700020006060000280000419005000080079",
  "200080300060070084030500209000105408000000000402706000301007040720040060004010003",
}
local check = 0
local tries = { 0 }
for _ = 1, rounds do
  for _, puzzle in ipairs(puzzles) do
    local g = grid(puzzle)
    if solve(g, 0, tries) then
      for i = 0, 80 do check = (check * 7 + g[i]) % 1000003 end
    end
  end
end
print(check .. " " .. tries[1])
