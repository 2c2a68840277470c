"""The HTTP API (v1), and the routes that serve the web pages: one router a concern, built into one app by `app.py`.

games (create, lobby, summary), commands (submit, results, join, abort), reads (view, legal,
events, export, audit, stream), pages (the HTML pages and their files), health; players and
notifications get routers of their own beside these. Every error answer is built in `errors.py`.
"""
