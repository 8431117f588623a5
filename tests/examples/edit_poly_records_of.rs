//! Lists the records of the Edit Poly operations with the given ids in the
//! given `.max` files: `edit_poly_records_of IDS FILE…` (IDS comma separated,
//! e.g. 16,49,50): file, node, stack index, operation index, release-free
//! summary: selection size and bits set, parameters, local data records, and
//! the previous and next operations' names and selection sizes / offsets —
//! the sizes Max recorded around the operation.

use maxfs_scene::eval::modifier::edit_poly_operation_record as record;

fn main() {
    let mut args = std::env::args().skip(1);
    let ids: Vec<u32> = args
        .next()
        .unwrap_or_default()
        .split(',')
        .filter_map(|s| s.parse().ok())
        .collect();
    maxfs_tests::for_each_stack(args, |path, eval, o, name, stack, _| {
        for at in (0..stack.len()).filter(|&i| stack[i].name == "Edit Poly") {
            let ops: Vec<_> = (0..).map_while(|k| record(eval, o, at, k).ok()).collect();
            let brief = |k: usize| {
                ops.get(k).map_or("-".to_string(), |r| {
                    format!("{}:{}/{}", r.id, r.selection.len(), r.offsets)
                })
            };
            for (k, r) in ops.iter().enumerate() {
                if !ids.contains(&r.id) {
                    continue;
                }
                let set: Vec<usize> = (0..r.selection.len()).filter(|&i| r.selection[i]).collect();
                let params: Vec<String> = r
                    .params
                    .iter()
                    .map(|(p, b)| format!("{p}={b:02x?}"))
                    .collect();
                let recs: Vec<String> = r
                    .records
                    .iter()
                    .map(|(id, b)| format!("{id:#06x}:{b:02x?}"))
                    .collect();
                println!(
                    "{path}\t{name}\t[{at}]\t{k}/{}\top {}\tsel {} set {:?}\t{}\t{}\tprev {}\tnext {}",
                    ops.len(),
                    r.id,
                    r.selection.len(),
                    set,
                    params.join(" "),
                    recs.join(" "),
                    if k > 0 { brief(k - 1) } else { "-".into() },
                    brief(k + 1)
                );
            }
        }
    });
}
