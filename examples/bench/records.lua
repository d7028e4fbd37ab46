-- Sorting records: the twin of records.cove (table.sort with comparator
-- functions; a key sort written as a comparator on the key).
local n = tonumber(arg and arg[1]) or 40000

local function order_checksum(people)
  local sum = 0
  for _, p in ipairs(people) do
    sum = (sum * 31 + p.id) % 1000000007
  end
  return sum
end

local people = {}
local last = 42
for id = 0, n - 1 do
  local name = ""
  for _ = 1, 4 do
    last = (last * 3877 + 29573) % 139968
    name = name .. string.char(97 + last % 26)
  end
  last = (last * 3877 + 29573) % 139968
  local age = 18 + last % 63
  last = (last * 3877 + 29573) % 139968
  people[#people + 1] = { id = id, name = name, age = age, score = last % 1000 }
end
table.sort(people, function(a, b) return a.age < b.age or (a.age == b.age and a.id < b.id) end)
local by_age = order_checksum(people)
table.sort(people, function(a, b) return a.name < b.name or (a.name == b.name and a.id < b.id) end)
local by_name = order_checksum(people)
local function key(p) return -p.score * n - p.id end
table.sort(people, function(a, b) return key(a) < key(b) end)
local by_score = order_checksum(people)
local adults = {}
for _, p in ipairs(people) do
  if p.age >= 40 then adults[#adults + 1] = p end
end
local total = 0
for _, p in ipairs(adults) do
  total = (total * 7 + (p.score + #p.name)) % 1000000007
end
print(by_age .. " " .. by_name .. " " .. by_score .. " " .. #adults .. " " .. total)
