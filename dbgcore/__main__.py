from dbgcore.entry import main

main()
