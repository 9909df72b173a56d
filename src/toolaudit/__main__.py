from toolaudit.cli import main

main()
