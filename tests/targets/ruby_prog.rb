# A small Ruby program for dbg's Ruby tests.
def add(a, b)
  c = a + b # @add_body
  c
end

def greet(name)
  "hi #{name}" # @greet_body
end

total = 0
3.times do |i|
  total = add(total, i) # @loop
end
puts "total=#{total}"
word = greet("ruby")
puts word
line = $stdin.gets
puts "read #{line.inspect}" # @after_read
gate = Queue.new
worker = Thread.new { gate.pop; :done } # waits for the main thread, however slow
sleep 0.1 # @threads
gate << :go
worker.join
begin
  nil.upcase # @raise
rescue NoMethodError
  puts "rescued"
end
puts "end" # @end
