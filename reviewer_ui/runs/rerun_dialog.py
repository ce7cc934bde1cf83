"""The Rerun dialog: endpoint, model, key source, prompt strategy and options,
generation and run parameters, which items, and the run name.

The API key itself is never stored: the dialog records only WHERE the key is
(an environment variable name or a keyring service). The optional "key for
this session" field sets that environment variable in this process when the
dialog is accepted and is then cleared; it is never written to QSettings,
the run's stored configuration or a log. Every other field is remembered in
QSettings (group ``runs/rerun``) for the next time.
"""

from __future__ import annotations

import importlib
import json
import os
from dataclasses import dataclass

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from reviewer.errors import ReviewerError
from reviewer.rerun.config import RunConfig
from reviewer.rerun.prompts.base import strategies_for
from reviewer_ui.runs.tasks import SCOPES

GROUP = "runs/rerun"
SCOPE_LABELS = {
    "all": "All items (only what is missing or failed is sent)",
    "filter": "The items the table's filters show",
    "edited": "Only items whose gold was fixed",
    "failed": "Only failed outputs (retry errors)",
}
KEY_SOURCES = {"none": "No key (local server)", "env": "Environment variable", "keyring": "System keyring service"}


@dataclass
class RerunRequest:
    run_name: str
    config: RunConfig
    scope: str  # one of SCOPES


def strategy_options(kind: str) -> dict[str, tuple]:
    """The options a kind's strategies accept, as ``{name: (default, other values...)}``
    (``()``: any value), read from the kind's prompt module; {} when it declares none."""
    try:
        module = importlib.import_module(f"reviewer.rerun.prompts.{kind}")
    except ImportError:
        return {}
    return dict(getattr(module, "OPTIONS", {}) or {})


def _option_text(value) -> str:
    return json.dumps(value)


class RerunDialog(QDialog):
    def __init__(self, kind: str, runs: list, configs: dict[str, dict], settings: QSettings,
                 parent: QWidget | None = None, runner=None):
        super().__init__(parent)
        self.runner = runner  # the GUI's JobRunner, for the connection test
        self.setWindowTitle("Rerun a model")
        self.kind = kind
        self.configs = configs  # run name -> stored RunConfig dict of runs made by reruns
        self.settings = settings
        self.result_request: RerunRequest | None = None

        # -- endpoint ---------------------------------------------------------------------
        self.base_url = QLineEdit()
        self.base_url.setPlaceholderText("http://127.0.0.1:8080/v1")
        self.model = QLineEdit()
        self.key_source = QComboBox()
        for key, label in KEY_SOURCES.items():
            self.key_source.addItem(label, key)
        self.key_name = QLineEdit()
        self.session_key = QLineEdit()
        self.session_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.session_key.setPlaceholderText("optional: sets the variable for this session only, never saved")
        self.key_source.currentIndexChanged.connect(self._key_source_changed)

        # -- prompt -------------------------------------------------------------------------
        self.strategy = QComboBox()
        self.strategy.addItems(strategies_for(kind) or ["default"])
        self.option_widgets: dict[str, QWidget] = {}
        self.options_allowed = strategy_options(kind)
        options_box = QWidget()
        options_form = QFormLayout(options_box)
        options_form.setContentsMargins(0, 0, 0, 0)
        for name, values in self.options_allowed.items():
            if len(values) > 1:
                w = QComboBox()
                for v in values:
                    w.addItem(_option_text(v), v)
            else:
                w = QLineEdit()
                w.setPlaceholderText("empty: not set (JSON value)")
            self.option_widgets[name] = w
            options_form.addRow(name, w)
        if not self.options_allowed:
            options_form.addRow(QLabel("This item kind's strategies take no options."))

        # -- generation and run -----------------------------------------------------------------
        self.temperature = QDoubleSpinBox(minimum=-0.1, maximum=2.0, singleStep=0.1, decimals=2)
        self.temperature.setSpecialValueText("not sent")
        self.max_tokens = QSpinBox(minimum=0, maximum=1_000_000, singleStep=100)
        self.max_tokens.setSpecialValueText("not sent")
        self.seed = QSpinBox(minimum=-1, maximum=2_147_483_647)
        self.seed.setSpecialValueText("not sent")
        self.concurrency = QSpinBox(minimum=1, maximum=256)
        self.timeout = QDoubleSpinBox(minimum=1, maximum=3600, decimals=0, suffix=" s")
        self.retries = QSpinBox(minimum=0, maximum=20)
        self.replications = QSpinBox(minimum=1, maximum=100)
        self.cache = QCheckBox("Reuse cached answers to identical requests")

        # -- items and run name ---------------------------------------------------------------------
        self.scope_group = QButtonGroup(self)
        scope_box = QGroupBox("Items")
        scope_col = QVBoxLayout(scope_box)
        for n, scope in enumerate(SCOPES):
            button = QRadioButton(SCOPE_LABELS[scope])
            self.scope_group.addButton(button, n)
            scope_col.addWidget(button)
        self.run_name = QComboBox()
        self.run_name.setEditable(True)
        self.run_name.addItems([r.name for r in runs])
        self.run_name.setCurrentText("")
        self.run_name.lineEdit().setPlaceholderText("a new name, or an existing run to continue")
        self.run_name.currentTextChanged.connect(self._run_name_changed)

        self.error = QLabel("")
        self.error.setObjectName("error")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c0392b")

        form = QFormLayout()
        form.addRow("Run name", self.run_name)
        form.addRow("Base URL", self.base_url)
        form.addRow("Model", self.model)
        self.test_button = QPushButton("Test connection")
        self.test_button.setToolTip("Ask the endpoint for its models and make one tiny request: latency, "
                                    "and whether it accepts JSON-schema output and tools")
        self.test_button.setAutoDefault(False)
        self.test_button.clicked.connect(self.test_connection)
        self.test_result = QLabel("")
        self.test_result.setWordWrap(True)
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow("", self.test_button)
        form.addRow("", self.test_result)
        form.addRow("API key from", self.key_source)
        form.addRow("Variable / service", self.key_name)
        form.addRow("Key (this session)", self.session_key)
        form.addRow("Strategy", self.strategy)
        form.addRow("Strategy options", options_box)
        gen = QHBoxLayout()
        for label, w in (("temperature", self.temperature), ("max tokens", self.max_tokens), ("seed", self.seed)):
            gen.addWidget(QLabel(label))
            gen.addWidget(w)
        form.addRow("Generation", gen)
        run = QHBoxLayout()
        for label, w in (("concurrency", self.concurrency), ("timeout", self.timeout), ("retries", self.retries),
                         ("replications", self.replications)):
            run.addWidget(QLabel(label))
            run.addWidget(w)
        form.addRow("Calls", run)
        form.addRow("", self.cache)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start rerun")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(scope_box)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self._restore()

    # -- key source -------------------------------------------------------------------------------

    def _key_source_changed(self) -> None:
        source = self.key_source.currentData()
        self.key_name.setEnabled(source != "none")
        self.session_key.setEnabled(source == "env")
        self.key_name.setPlaceholderText({"env": "e.g. OPENAI_API_KEY", "keyring": "e.g. reviewer-openai"}.get(source, ""))

    # -- values --------------------------------------------------------------------------------------

    def set_scope(self, scope: str) -> None:
        self.scope_group.button(SCOPES.index(scope)).setChecked(True)

    def scope(self) -> str:
        return SCOPES[max(0, self.scope_group.checkedId())]

    def options(self) -> dict:
        """The options that differ from their defaults (only those are sent, so setup
        strategies that fix some options never see a contradicting default)."""
        out = {}
        for name, w in self.option_widgets.items():
            values = self.options_allowed[name]
            if isinstance(w, QComboBox):
                value = w.currentData()
                if value != values[0]:
                    out[name] = value
            elif w.text().strip():
                text = w.text().strip()
                try:
                    out[name] = json.loads(text)
                except ValueError:
                    out[name] = text
        return out

    def config(self) -> RunConfig:
        """The RunConfig of the fields (raises InputError naming what is wrong)."""
        source = self.key_source.currentData()
        name = self.key_name.text().strip() or None
        if source != "none" and not name:
            raise ReviewerError(f"name the {KEY_SOURCES[source].lower()} that holds the API key")
        return RunConfig(
            base_url=self.base_url.text().strip(), model=self.model.text().strip(),
            api_key_env=name if source == "env" else None, keyring_service=name if source == "keyring" else None,
            temperature=None if self.temperature.value() < 0 else self.temperature.value(),
            max_tokens=self.max_tokens.value() or None, seed=None if self.seed.value() < 0 else self.seed.value(),
            concurrency=self.concurrency.value(), timeout=self.timeout.value(), retries=self.retries.value(),
            replications=self.replications.value(), strategy=self.strategy.currentText(),
            strategy_options=self.options(), cache=self.cache.isChecked(),
        )

    def set_config(self, config: RunConfig | dict) -> None:
        c = config if isinstance(config, RunConfig) else RunConfig.from_dict(config)
        self.base_url.setText(c.base_url)
        self.model.setText(c.model)
        source = "keyring" if c.keyring_service else ("env" if c.api_key_env else "none")
        self.key_source.setCurrentIndex(self.key_source.findData(source))
        self.key_name.setText(c.keyring_service or c.api_key_env or "")
        self.temperature.setValue(-0.1 if c.temperature is None else c.temperature)
        self.max_tokens.setValue(c.max_tokens or 0)
        self.seed.setValue(-1 if c.seed is None else c.seed)
        self.concurrency.setValue(c.concurrency)
        self.timeout.setValue(c.timeout)
        self.retries.setValue(c.retries)
        self.replications.setValue(c.replications)
        self.cache.setChecked(c.cache)
        index = self.strategy.findText(c.strategy)
        if index >= 0:
            self.strategy.setCurrentIndex(index)
        for name, w in self.option_widgets.items():
            value = c.strategy_options.get(name, self.options_allowed[name][0] if self.options_allowed[name] else None)
            if isinstance(w, QComboBox):
                w.setCurrentIndex(max(0, w.findText(_option_text(value))))
            else:
                w.setText("" if value is None else (value if isinstance(value, str) else json.dumps(value)))

    def _run_name_changed(self, name: str) -> None:
        # Continuing a run needs its endpoint, model and strategy: take them all from it.
        stored = self.configs.get(name)
        if stored:
            try:
                self.set_config(stored)
            except ReviewerError as exc:  # a run stored by another version: say so, keep the fields
                self.error.setText(f"run {name!r} has a configuration this version cannot read: {exc}")

    # -- settings (never the key) -----------------------------------------------------------------------

    def _restore(self) -> None:
        s = self.settings
        stored = s.value(f"{GROUP}/config", "")
        try:
            config = RunConfig.from_json(stored) if stored else None
        except ReviewerError:
            config = None  # settings from an older version: start from the defaults
        if config is None:
            config = RunConfig(base_url="http://127.0.0.1:8080/v1", model="local-model")
        kind_options = s.value(f"{GROUP}/options/{self.kind}", "")
        config.strategy_options = json.loads(kind_options) if kind_options else {}
        self.set_config(config)
        strategy = s.value(f"{GROUP}/strategy/{self.kind}", "")
        if strategy and self.strategy.findText(strategy) >= 0:
            self.strategy.setCurrentText(strategy)
        scope = s.value(f"{GROUP}/scope", "all")
        self.set_scope(scope if scope in SCOPES else "all")
        self._key_source_changed()

    def _save(self, config: RunConfig) -> None:
        general = config.to_dict() | {"strategy": "default", "strategy_options": {}}  # per kind below
        self.settings.setValue(f"{GROUP}/config", json.dumps(general, sort_keys=True))
        self.settings.setValue(f"{GROUP}/strategy/{self.kind}", config.strategy)
        self.settings.setValue(f"{GROUP}/options/{self.kind}", json.dumps(config.strategy_options))
        self.settings.setValue(f"{GROUP}/scope", self.scope())
        self.settings.sync()

    # -- connection test --------------------------------------------------------------------------------

    def test_connection(self) -> None:
        """Probe the endpoint as configured (reviewer.rerun.probe), on the job runner."""
        try:
            config = self.config()
        except ReviewerError as exc:
            self.test_result.setText(str(exc))
            return
        self._use_session_key(config)
        self.test_result.setText(f"Testing {config.base_url}…")
        if self.runner is None:
            self.test_result.setText("cannot test here: no job runner")
            return
        self.test_button.setEnabled(False)
        job = self.runner.start("rerun:probe", _probe_job, config, on_result=self._tested,
                                on_error=lambda exc, _tb: self.test_result.setText(f"test failed: {exc}"))
        job.done.connect(lambda: self.test_button.setEnabled(True))

    def _tested(self, report) -> None:
        self.last_probe = report
        self.test_result.setText(report.describe())

    def _use_session_key(self, config: RunConfig) -> None:
        key = self.session_key.text()
        if key and config.api_key_env:
            os.environ[config.api_key_env] = key  # this process only; see the module docstring

    # -- accept -----------------------------------------------------------------------------------------

    def request(self) -> RerunRequest:
        """What to run (raises ReviewerError when a field is wrong)."""
        name = self.run_name.currentText().strip()
        if not name:
            raise ReviewerError("give the run a name (an existing name continues that run)")
        return RerunRequest(name, self.config(), self.scope())

    def accept(self) -> None:
        try:
            request = self.request()
        except ReviewerError as exc:
            self.error.setText(str(exc))
            return
        self._use_session_key(request.config)
        self.session_key.clear()
        self._save(request.config)
        self.result_request = request
        super().accept()


def _probe_job(ctx, config: RunConfig):
    from reviewer.rerun.probe import probe

    return probe(config)
