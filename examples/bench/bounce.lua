-- Balls bouncing in a box: the twin of bounce.cove.
local rounds = tonumber(arg and arg[1]) or 1200

local function next_random(seed)
  seed[1] = (seed[1] * 1309 + 13849) % 65536
  return seed[1]
end

local function bounce(b)
  local x_limit, y_limit = 500, 500
  local bounced = false
  b.x = b.x + b.x_vel
  b.y = b.y + b.y_vel
  if b.x > x_limit then
    b.x = x_limit
    b.x_vel = 0 - math.abs(b.x_vel)
    bounced = true
  end
  if b.x < 0 then
    b.x = 0
    b.x_vel = math.abs(b.x_vel)
    bounced = true
  end
  if b.y > y_limit then
    b.y = y_limit
    b.y_vel = 0 - math.abs(b.y_vel)
    bounced = true
  end
  if b.y < 0 then
    b.y = 0
    b.y_vel = math.abs(b.y_vel)
    bounced = true
  end
  return bounced
end

local bounces = 0
for _ = 1, rounds do
  local seed = { 74755 }
  local balls = {}
  for i = 1, 100 do
    local x = next_random(seed) % 500
    local y = next_random(seed) % 500
    local x_vel = next_random(seed) % 300 - 150
    local y_vel = next_random(seed) % 300 - 150
    balls[i] = { x = x, y = y, x_vel = x_vel, y_vel = y_vel }
  end
  for _ = 1, 50 do
    for i = 1, #balls do
      if bounce(balls[i]) then bounces = bounces + 1 end
    end
  end
end
print(bounces)
