from fablint.entry import main

main()
