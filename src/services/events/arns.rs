//! The ARNs EventBridge operations build or resolve more than once: a rule's ARN and the bus an
//! entry or request names. A leaf: it imports the store and `crate::arn` only, never an
//! operation of `events`.

use super::store::Store;
use crate::arn::Arn;
use crate::services::Context;

/// The ARN of rule `name` on bus `bus` of `region` and `account`; the default bus is not named.
pub fn rule_arn(region: &str, account: &str, bus: &str, name: &str) -> String {
    let resource = if bus == "default" {
        format!("rule/{name}")
    } else {
        format!("rule/{bus}/{name}")
    };
    Arn::new("events", region, account, &resource).text()
}

/// The bus an entry names (a name or an ARN; `default` when absent) as (ARN, name).
pub fn resolve_bus(cx: &Context, name_or_arn: Option<&str>) -> (String, String) {
    match name_or_arn {
        Some(arn) if arn.starts_with("arn:") => {
            let name = Arn::resource_path(arn, "event-bus").unwrap_or(arn);
            (arn.to_string(), name.to_string())
        }
        Some(name) => (
            Store::bus_arn(&cx.region, &cx.account, name),
            name.to_string(),
        ),
        None => (
            Store::bus_arn(&cx.region, &cx.account, "default"),
            "default".to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_arns_name_the_bus_unless_it_is_the_default() {
        let (region, account) = ("us-east-1", "000000000000");
        assert_eq!(
            rule_arn(region, account, "default", "r"),
            "arn:aws:events:us-east-1:000000000000:rule/r"
        );
        assert_eq!(
            rule_arn(region, account, "orders", "r"),
            "arn:aws:events:us-east-1:000000000000:rule/orders/r"
        );
    }
}
