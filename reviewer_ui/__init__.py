"""reviewer's Qt desktop app. Everything Qt lives under this package; the core
(``reviewer``) never imports it. Widgets reach the database only through the
Store, called from jobs (reviewer_ui.runtime.jobs) or item models (ui.models)."""
