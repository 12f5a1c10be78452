from legacydoc.cli import main

main()
