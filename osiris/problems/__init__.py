"""Every runtime problem a step can meet, built in one place: `RuntimeProblem` and one named
constructor per kind, so that each OML5xx code keeps the one meaning docs/errors.md gives it.

A constructor takes the facts (names, counts, a library's redacted detail) and writes the message
and the hint. Texts are the person's: they name the step's connection, table or column, never a
cell value. This package sits at the bottom of the layers (docs/architecture.md): the trust
boundary and the catalog raise these problems as the runtime does. `osiris.run.problems` gives the
drivers the same constructors, with the helpers that redact a library's error text and those that
read the engine's caps.

One module per family of codes (docs/errors.md), each imported here so that callers write
`from osiris.problems import X` whatever module X lives in:

- `base`: `RuntimeProblem`, a problem said again, an internal error (OML105);
- `tables`: tables, columns and SQL (OML501-OML503, OML540), and the names in an error text;
- `exact_values`: a value that cannot arrive exactly or does not fit (OML504);
- `writes`: a writer's target, keys, refused rows and input (OML501, OML512, OML514, OML519);
- `connecting`: server, user, rights, secrets and settings of a connection (OML505-OML507,
  OML511, OML520, OML521);
- `file_access`: a step's files (OML502, OML503, OML510);
- `api`: an API's records and pages, an HTTP step's codes (OML509, OML515, OML524, OML535, OML539);
- `steps`: no driver, a step's warnings and checks (OML513, OML516, OML537, OML538);
- `limits`: the operating system, memory, deadline, scratch (OML503, OML526, OML532, OML533);
- `spark`: the Spark engine (OML414, OML503, OML516, OML527, OML528);
- `trust_boundary`: what the trust boundary refuses (OML510, OML517, OML518).
"""

from __future__ import annotations

from osiris.problems.api import (
    api_problem,
    invalid_response_problem,
    no_page_info_problem,
    no_records_problem,
    paging_stalled_problem,
    paging_unended_problem,
    unknown_columns_problem,
    unknown_data_type_problem,
    unloadable_record_problem,
)
from osiris.problems.base import (
    RuntimeProblem,
    internal_problem,
    no_engine_count_problem,
    restated,
)
from osiris.problems.connecting import (
    auth_problem,
    cleartext_problem,
    connect_problem,
    no_endpoint_problem,
    permission_problem,
    setting_problem,
    unconfigured_problem,
    unset_secret_problem,
)
from osiris.problems.exact_values import (
    inexact_float_problem,
    not_a_datetime_problem,
    type_problem,
    unencodable_problem,
    unreadable_value_problem,
    value_problem,
)
from osiris.problems.file_access import (
    repeated_header_problem,
    file_column_problem,
    file_problem,
    no_directory_problem,
    unknown_dtype_column_problem,
    unreadable_csv_problem,
    unreadable_file_problem,
    unwritable_file_problem,
)
from osiris.problems.limits import (
    deadline_problem,
    memory_problem,
    scratch_problem,
    system_problem,
)
from osiris.problems.spark import (
    no_bounds_problem,
    spark_analysis_problem,
    spark_inputs_problem,
    spark_job_problem,
    spark_not_started_problem,
    spark_transform_problem,
    spark_unavailable_problem,
)
from osiris.problems.steps import (
    check_warning,
    checks_failed_problem,
    driver_warning,
    empty_sample_problem,
    no_driver_problem,
)
from osiris.problems.tables import (
    engine_table_problem,
    names_hint,
    nothing_to_discover_problem,
    quoted_name,
    repeated_column_problem,
    repeated_header,
    repeated_name,
    sql_problem,
    unknown_column_problem,
    unknown_table_problem,
)
from osiris.problems.trust_boundary import (
    OUTSIDE_PROJECT_HINT,
    boundary_problem,
    folder_gone_problem,
    outside_inputs_problem,
    outside_project_problem,
    reference_in_pipeline_problem,
)
from osiris.problems.writes import (
    REJECTION_HINTS,
    input_without_table_problem,
    inputs_problem,
    key_not_in_input_problem,
    key_problem,
    keys_needed_problem,
    missing_target_problem,
    rejected_problem,
    uncreatable_target_problem,
    unique_key_problem,
)

__all__ = [
    "OUTSIDE_PROJECT_HINT",
    "REJECTION_HINTS",
    "RuntimeProblem",
    "api_problem",
    "auth_problem",
    "boundary_problem",
    "check_warning",
    "checks_failed_problem",
    "cleartext_problem",
    "connect_problem",
    "deadline_problem",
    "driver_warning",
    "empty_sample_problem",
    "engine_table_problem",
    "file_problem",
    "folder_gone_problem",
    "inexact_float_problem",
    "input_without_table_problem",
    "inputs_problem",
    "internal_problem",
    "invalid_response_problem",
    "key_not_in_input_problem",
    "key_problem",
    "keys_needed_problem",
    "memory_problem",
    "missing_target_problem",
    "names_hint",
    "no_bounds_problem",
    "no_directory_problem",
    "no_driver_problem",
    "no_endpoint_problem",
    "no_engine_count_problem",
    "no_page_info_problem",
    "no_records_problem",
    "not_a_datetime_problem",
    "nothing_to_discover_problem",
    "outside_inputs_problem",
    "outside_project_problem",
    "paging_stalled_problem",
    "paging_unended_problem",
    "permission_problem",
    "quoted_name",
    "reference_in_pipeline_problem",
    "rejected_problem",
    "repeated_column_problem",
    "repeated_header",
    "repeated_name",
    "restated",
    "scratch_problem",
    "setting_problem",
    "spark_analysis_problem",
    "spark_inputs_problem",
    "spark_job_problem",
    "spark_not_started_problem",
    "spark_transform_problem",
    "spark_unavailable_problem",
    "sql_problem",
    "system_problem",
    "type_problem",
    "unconfigured_problem",
    "uncreatable_target_problem",
    "unencodable_problem",
    "unique_key_problem",
    "unknown_column_problem",
    "unknown_columns_problem",
    "unknown_data_type_problem",
    "unknown_dtype_column_problem",
    "file_column_problem",
    "repeated_header_problem",
    "unknown_table_problem",
    "unloadable_record_problem",
    "unreadable_csv_problem",
    "unreadable_file_problem",
    "unreadable_value_problem",
    "unset_secret_problem",
    "unwritable_file_problem",
    "value_problem",
]
