"""Reports: statistics, call records (cdr), agents and extensions, the App Home wallboard
and charts.
"""
