# Reads lines from its stdin, a prompt before each: as many as its argument
# says (default 3), or up to the end of the file. For tests/test_stdin.py.

def main
  wanted = ARGV.empty? ? 3 : Integer(ARGV[0])
  got = 0 # @before
  while got < wanted
    print "line #{got + 1}? "
    text = $stdin.gets
    if text.nil?
      puts "EOF after #{got} lines"
      break
    end
    got += 1 # @got
    puts "read #{got}: #{text.rstrip}"
  end
  puts "done: #{got} lines" # @done
end

main
