//! The public `Cost` is the contract's four figures and no more: code
//! outside the crate builds `Cost` literals and adds them with `Cost::add`,
//! so a fifth public field (the blocked time once was one) breaks it. The
//! blocked time lives in `Charge`, beside a cost; these tests hold both
//! shapes, and the JSON of a charge to the object a cost always was.

use cove_profile::{Charge, Cost};

#[test]
fn a_cost_is_built_as_a_literal_of_its_four_fields_and_added() {
    let mut a = Cost {
        ran: 1,
        nanos: 2,
        words: 3,
        allocations: 4,
    };
    a.add(&Cost {
        ran: 10,
        nanos: 20,
        words: 30,
        allocations: 40,
    });
    let Cost {
        ran,
        nanos,
        words,
        allocations,
    } = a;
    assert_eq!((ran, nanos, words, allocations), (11, 22, 33, 44));
    assert_eq!(
        a.since(&Cost {
            ran: 1,
            nanos: 2,
            words: 3,
            allocations: 4,
        }),
        Cost {
            ran: 10,
            nanos: 20,
            words: 30,
            allocations: 40,
        }
    );
}

#[test]
fn a_charge_writes_one_json_object_with_blocked_only_where_it_is_not_zero() {
    let cost = Cost {
        ran: 1,
        nanos: 2,
        words: 3,
        allocations: 4,
    };
    let never_waited = serde_json::to_string(&Charge::from(cost)).expect("it writes");
    assert_eq!(
        never_waited,
        r#"{"ran":1,"nanos":2,"words":3,"allocations":4}"#
    );
    let waited = Charge { cost, blocked: 5 };
    let text = serde_json::to_string(&waited).expect("it writes");
    assert_eq!(
        text,
        r#"{"ran":1,"nanos":2,"words":3,"allocations":4,"blocked":5}"#
    );
    assert_eq!(
        serde_json::from_str::<Charge>(&text).expect("it reads"),
        waited
    );
    assert_eq!(
        serde_json::from_str::<Charge>(&never_waited).expect("it reads"),
        Charge::from(cost)
    );
}
