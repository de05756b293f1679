from newsroom.cli import main

main()
