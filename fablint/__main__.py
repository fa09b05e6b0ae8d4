from fablint.cli import main

main()
