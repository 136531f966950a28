from dbgcore.cli import main

main()
