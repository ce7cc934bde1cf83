"""A re-import compares everything an item takes from its source files with what is stored:
the record, the payload (a NesTools item's api ids come from its ids file) and its context
and schema texts (a toolJSON response file). Before, only the record was compared, so a
corrected ids file or response file read as "unchanged"."""

from __future__ import annotations

import json


def test_a_response_file_changed_since_the_import_is_reported_on_reimport(store, tmp_path):
    """A toolJSON item's context is its API response file: a re-import of the folder with that
    file changed counts the items answering from it as changed in the source (kept as stored)."""
    import shutil

    from reviewer.samples import DATA_DIR

    folder = tmp_path / "tooljson"
    shutil.copytree(DATA_DIR / "tooljson", folder, ignore=shutil.ignore_patterns("predictions"))
    first = store.import_dataset(folder, format="tooljson", name="tj")
    again = store.import_dataset(folder, format="tooljson", name="tj")
    assert (again.added, again.unchanged, again.changed_in_source) == (0, first.added, [])
    response = folder / "api_responses" / "citybikes.example.org_v1_stations.json"
    from reviewer.store.queries import ItemQuery

    first_id = store.item_page(ItemQuery(store.dataset("tj").id), 0, 1)[0].id
    stored_context = store.item(first_id).context
    tree = json.loads(response.read_text())

    def bump(value):  # the first number found, one more: the response says something else now
        if isinstance(value, dict):
            return any(bump(v) if isinstance(v, (dict, list)) else _bump_key(value, k) for k, v in value.items())
        return any(bump(v) for v in value if isinstance(v, (dict, list)))

    def _bump_key(obj, key):
        if isinstance(obj[key], (int, float)) and not isinstance(obj[key], bool):
            obj[key] += 1
            return True
        return False

    assert bump(tree)
    response.write_text(json.dumps(tree, indent=2))
    changed = store.import_dataset(folder, format="tooljson", name="tj")
    # the items answering from the response that changed (the others answer from another query's)
    assert changed.added == 0 and changed.changed_in_source
    assert changed.unchanged + len(changed.changed_in_source) == first.added
    assert store.item(first_id).context == stored_context
