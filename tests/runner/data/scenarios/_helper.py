# Not a scenario: the suite skips files whose name starts with '_'. isolation.py imports it from the
# scenario's folder.
GREETING = "imported from the scenario's folder"
