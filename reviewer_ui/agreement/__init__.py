"""The agreement panel: the curation report of ``reviewer.agreement`` inside the app.

``dock.install(window)`` adds it to the main window; ``panel.AgreementPanel``
is the widget; ``job.compute_agreement`` is the background computation.
"""
