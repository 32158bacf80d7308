//! Why a clock advance was refused: the control API answers each with its own error code
//! (docs/control-api.md, `clock/advance`).

use super::broken_state;
use crate::engine::time::Millis;

/// Why an advance was refused; the control API answers each with its own error code.
#[derive(Debug, PartialEq)]
pub enum AdvanceError {
    /// `real` clocks cannot be moved (`ClockNotAdjustable`).
    NotAdjustable,
    /// The requested time is before the current virtual time (`TimeInPast`).
    InPast { now: Millis, target: Millis },
    /// The requested time is after [`super::LATEST`], or the amount is negative (`InvalidArgument`).
    OutOfRange,
    /// The state was left half-changed by a panic (`InternalFailure`): nothing fires in it, and
    /// the clock stays, until a reset or a state load.
    Broken,
}

impl AdvanceError {
    /// The control API's error code (docs/control-api.md).
    pub fn code(&self) -> &'static str {
        match self {
            AdvanceError::NotAdjustable => "ClockNotAdjustable",
            AdvanceError::InPast { .. } => "TimeInPast",
            AdvanceError::OutOfRange => "InvalidArgument",
            AdvanceError::Broken => "InternalFailure",
        }
    }
}

impl std::fmt::Display for AdvanceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::engine::time::format_rfc3339;
        match self {
            AdvanceError::NotAdjustable => f.write_str(
                "The clock is real; start switchyard with --clock manual or fast:<factor> to move it.",
            ),
            AdvanceError::InPast { now, target } => write!(
                f,
                "{} is before the current virtual time {}.",
                format_rfc3339(*target),
                format_rfc3339(*now)
            ),
            AdvanceError::OutOfRange => f.write_str(
                "Time moves forward only, and not past 9999-12-31T23:59:59.999Z.",
            ),
            AdvanceError::Broken => f.write_str(&broken_state().message),
        }
    }
}

impl std::error::Error for AdvanceError {}
