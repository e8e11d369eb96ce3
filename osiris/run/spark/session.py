"""One SparkSession per process, built from the `run.spark.*` settings (docs/spark.md).

The driver binds to 127.0.0.1 and the web UI is off, unless `run.spark.conf` says otherwise (a
cluster's executors must reach the driver: set `spark.driver.host` there). The JVM logs nothing:
its messages can quote rows, JDBC URLs and Java class names, so errors reach the person only as
OML lines (osiris.run.spark.errors). The JDBC drivers of Debian's `libpostgresql-jdbc-java` and
`libmariadb-java` are added when they are installed; `run.spark.jars` adds more.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from osiris.errors import UsageError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from osiris.settings.model import SparkSettings

INSTALL_HINT = ("the Spark engine needs pyspark: run .venv/bin/pip install -e '.[spark]' in the Osiris clone "
                "(and Java 17 or newer)")  # Osiris is not on PyPI: the extra is installed from the clone
JAR_FOLDERS = (Path("/usr/share/java"),)
JDBC_JARS = {"postgres": "postgresql.jar", "mysql": "mariadb-java-client.jar"}  # Debian's names
_LOG_CONFIG = "rootLogger.level = off\n"
_DEFAULTS = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.driver.host": "127.0.0.1",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.ansi.enabled": "true",
    # What a transform's SQL may not reach, switched off in Spark too (docs/security.md, "SQL allowed by list"):
    "spark.sql.runSQLOnFiles": "false",  # csv.`path`, parquet.x, text.x: a file read through a table name
    "spark.sql.variable.substitute": "false",  # ${env:NAME}, ${sparkconf:...} written into the SQL text
    # docs/types.md holds on Spark too: dates and times in the proleptic Gregorian calendar both ways
    # (0001-01-01 and 1582-10-10 stay what they are), CHAR/ENUM values as stored, not padded
    "spark.sql.datetime.java8API.enabled": "true",
    "spark.sql.parquet.datetimeRebaseModeInRead": "CORRECTED",
    "spark.sql.parquet.datetimeRebaseModeInWrite": "CORRECTED",
    "spark.sql.parquet.int96RebaseModeInRead": "CORRECTED",
    "spark.sql.parquet.int96RebaseModeInWrite": "CORRECTED",
    "spark.sql.avro.datetimeRebaseModeInRead": "CORRECTED",
    "spark.sql.avro.datetimeRebaseModeInWrite": "CORRECTED",
    "spark.sql.readSideCharPadding": "false",
    "spark.sql.legacy.charVarcharAsString": "true",
}

_current: tuple[tuple[Any, ...], SparkSession] | None = None
_folder: Path | None = None


def require_pyspark() -> None:
    """Exit 2 with one line when pyspark is not installed (it is an optional extra)."""
    if importlib.util.find_spec("pyspark") is None:
        raise UsageError(INSTALL_HINT)


def spark_session(settings: SparkSettings) -> SparkSession:
    """The process's SparkSession for these settings; a session with other settings is stopped first."""
    global _current
    conf = session_conf(settings)
    key = (settings.master, tuple(sorted(conf.items())))
    if _current is not None and _current[0] == key:
        return _current[1]
    check_master(settings.master)  # before anything stops or starts: Spark itself would wait 60 s, then fail vaguely
    if _current is not None:
        _current[1].stop()
        _current = None
    session = _start(settings.master, conf)
    _current = (key, session)
    return session


def abandon() -> None:
    """Stop the process's Spark at once: its JVM is killed, so that running tasks end now and their
    database connections let go of what they hold (a scratch table the run must drop). For Ctrl-C in
    the middle of a job, and for a task still running after its job was cancelled at the deadline.
    pyspark's own handles are forgotten too: the next `spark_session` starts a new JVM."""
    global _current
    if _current is None:
        return
    session, _current = _current[1], None
    context = session.sparkContext
    process = getattr(context._gateway, "proc", None)  # launch_gateway's JVM
    if process is not None:
        process.kill()
        process.wait(timeout=60)
    _forget(context)


def _forget(context: Any) -> None:
    """Clear the class-level handles pyspark keeps to a JVM that is gone (SparkContext.stop would call it)."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    with contextlib.suppress(Exception):  # the gateway's sockets are closed already
        context._gateway.shutdown()
    if context._accumulatorServer is not None:
        context._accumulatorServer.shutdown()
    SparkContext._active_spark_context = None
    SparkContext._gateway = None
    SparkContext._jvm = None
    SparkSession._instantiatedSession = None
    SparkSession._activeSession = None


def running_tasks(session: SparkSession) -> int:
    """How many tasks the session's executors still run. A cancelled job's task keeps running until
    its code looks at its interrupt flag, which a long generated loop (a nested-loop join) may never do."""
    infos = session.sparkContext._jsc.sc().statusTracker().getExecutorInfos()
    return sum(int(info.numRunningTasks()) for info in infos)


def _start(master: str, conf: dict[str, str]) -> SparkSession:
    """Start the JVM with its output sent nowhere (OSIRIS_DEBUG=1: to the terminal), then the session."""
    import subprocess

    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway
    from pyspark.logger import PySparkLogger
    from pyspark.sql import SparkSession

    PySparkLogger.getLogger("SQLQueryContextLogger").disabled = True  # it prints Java errors as JSON
    logging.getLogger("py4j").setLevel(logging.CRITICAL + 1)  # its own loggers, and the root logger it also uses
    if not logging.getLogger().handlers:  # (`logging.exception`), which would set up a stderr handler and print
        logging.getLogger().addHandler(logging.NullHandler())  # a traceback for Ctrl-C in the middle of a job
    spark_conf = SparkConf(loadDefaults=False).setMaster(master).setAppName("osiris").setAll(list(conf.items()))
    quiet = {} if os.environ.get("OSIRIS_DEBUG") else {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    gateway = launch_gateway(spark_conf, popen_kwargs=quiet)  # type: ignore[no-untyped-call]  # pyspark leaves it untyped
    context = SparkContext(conf=spark_conf, gateway=gateway)
    session = SparkSession(context)
    keep_listed_functions(session)
    return session


# Functions Osiris's own reads and writes call (never a pipeline's SQL, which the list refuses them in):
# raise_error stops a JDBC read at a value Spark cannot hold, with a marker and the column's index, never
# the value (osiris/run/spark/columns.py); try_parse_json turns a JSON field of an object into the JSON
# it holds before the object is written as JSON (osiris/run/spark/nested_json.py).
OSIRIS_OWN_FUNCTIONS = frozenset({"raise_error", "try_parse_json"})


def keep_listed_functions(session: SparkSession) -> None:
    """Drop from the session's function registries every built-in function and table function that
    is not on the Spark allowlist (osiris/trust/allowlists/spark.txt): Spark itself then cannot call
    `reflect`, `java_method`, `input_file_name`, ..., however the SQL names them (IDENTIFIER('...'),
    backquotes), even where a check were fooled. Transforms are the only SQL the session runs."""
    from osiris.trust.allowlist import functions

    keep = functions("spark") | OSIRIS_OWN_FUNCTIONS
    state = session._jsparkSession.sessionState()
    for registry in (state.functionRegistry(), state.tableFunctionRegistry()):
        listed = registry.listFunction().iterator()
        while listed.hasNext():
            identifier = listed.next()
            if str(identifier.funcName()).lower() not in keep:
                registry.dropFunction(identifier)


def session_conf(settings: SparkSettings) -> dict[str, str]:
    """Osiris's defaults, the JDBC jars found, then the person's `run.spark.conf` over them."""
    conf = dict(_DEFAULTS)
    conf["spark.sql.warehouse.dir"] = str(_private_dir() / "warehouse")  # not spark-warehouse/ in the project
    java_options = f"-Dlog4j2.configurationFile={_private_dir() / 'log4j2.properties'} -Duser.timezone=UTC"
    conf["spark.driver.extraJavaOptions"] = java_options
    conf["spark.executor.extraJavaOptions"] = java_options
    conf["spark.pyspark.python"] = sys.executable  # the CSV writer's number texts run in Python (spark/files.py)
    if settings.master.startswith("local"):
        conf["spark.sql.shuffle.partitions"] = "4"  # 200 by default: many empty tasks on one machine
    jars = [str(path) for path in found_jars()] + [str(Path(j).expanduser()) for j in settings.jars]
    if jars:
        conf["spark.jars"] = ",".join(jars)
    conf.update(settings.conf)
    return conf


class MasterUnreachable(Exception):
    """A `spark://` master that no address answers."""


def check_master(master: str, timeout: float = 5.0) -> None:
    """Raise MasterUnreachable naming `master` when none of its `spark://host:port` addresses accepts a
    connection. Spark's own client would retry for 60 s and then report a stopped SparkContext."""
    import socket

    if not master.startswith("spark://"):
        return  # local[N] needs nothing; yarn and k8s have their own clients
    reasons = []
    for address in master.removeprefix("spark://").split(","):
        host, _, port = address.strip().rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=timeout):
                return
        except (OSError, ValueError) as error:
            reasons.append(getattr(error, "strerror", None) or str(error) or type(error).__name__)
    raise MasterUnreachable(f"cannot reach the master {master} ({reasons[0].lower() if reasons else 'no address'})")


def missing_jar(family: str, settings: SparkSettings) -> str | None:
    """The JDBC driver jar a `family` step needs when the session would not have it, else None."""
    if jar_for(family, settings):
        return None
    return str(JAR_FOLDERS[0] / JDBC_JARS[family])


def found_jars() -> list[Path]:
    """The JDBC driver jars installed on this machine."""
    return [folder / name for name in JDBC_JARS.values() for folder in JAR_FOLDERS if (folder / name).is_file()]


def jar_for(family: str, settings: SparkSettings) -> bool:
    """True when a JDBC driver for `family` is on the session's class path."""
    wanted = JDBC_JARS[family].split(".jar")[0].split("-")[0]
    return any(wanted in Path(p).name and ("://" in p or Path(p).is_file())  # a URL: the cluster's to fetch
               for p in session_conf(settings).get("spark.jars", "").split(",") if p)


def _private_dir() -> Path:
    """This process's folder for Spark's files (the log settings, the warehouse), removed at exit."""
    global _folder
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="osiris-spark-"))
        (_folder / "log4j2.properties").write_text(_LOG_CONFIG, encoding="utf-8")
        atexit.register(shutil.rmtree, _folder, True)
    return _folder
