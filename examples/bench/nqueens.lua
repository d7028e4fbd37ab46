-- N-queens: the twin of nqueens.cove (indexed from 0, as the Cove program
-- is, since the diagonals' index arithmetic is part of the work).
local n = tonumber(arg and arg[1]) or 11

local function place(row, n, cols, up, down)
  if row == n then
    return 1
  end
  local found = 0
  for c = 0, n - 1 do
    local u = row + c
    local d = row - c + n - 1
    if not cols[c] and not up[u] and not down[d] then
      cols[c] = true
      up[u] = true
      down[d] = true
      found = found + place(row + 1, n, cols, up, down)
      cols[c] = false
      up[u] = false
      down[d] = false
    end
  end
  return found
end

local function solve(n)
  local cols, up, down = {}, {}, {}
  for i = 0, n - 1 do
    cols[i] = false
  end
  for i = 0, 2 * n - 1 do
    up[i] = false
    down[i] = false
  end
  return place(0, n, cols, up, down)
end

local total = 0
for round = 1, 3 do
  total = total + solve(n)
end
print(total)
