-- K-nucleotide: the twin of knucleotide.cove.
local n = tonumber(arg and arg[1]) or 300000

local function sequence(n)
  local letters = {"A", "C", "G", "T"}
  local parts = {}
  local last = 42
  for i = 1, n do
    last = (last * 3877 + 29573) % 139968
    parts[i] = letters[math.floor(last * 4 / 139968) + 1]
  end
  return table.concat(parts)
end

local function frequencies(seq, k)
  local counts, distinct = {}, 0
  for i = 1, #seq - k + 1 do
    local key = string.sub(seq, i, i + k - 1)
    local c = counts[key]
    if c == nil then
      distinct = distinct + 1
      counts[key] = 1
    else
      counts[key] = c + 1
    end
  end
  return counts, distinct
end

local seq = sequence(n)
local wanted = {"A", "GG", "GGT", "GGTA", "GGTATT", "GGTATTTTAATT", "GGTATTTTAATTTATAGT"}
for _, key in ipairs(wanted) do
  local counts, distinct = frequencies(seq, #key)
  print(#key .. " " .. distinct .. " " .. (counts[key] or 0))
end
