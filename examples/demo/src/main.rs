use std::env;

/// Greets whoever is named on the command line.
fn main() {
    let name = env::args().nth(1).unwrap_or_else(|| "world".to_string());
    println!("{}", greeting(&name));
}

fn step_1(x: u32) -> u32 {
    // step 1 of the pipeline
    x + 1
}

fn step_2(x: u32) -> u32 {
    // step 2 of the pipeline
    x + 2
}

fn step_3(x: u32) -> u32 {
    // step 3 of the pipeline
    x + 3
}

fn step_4(x: u32) -> u32 {
    // step 4 of the pipeline
    x + 4
}

fn step_5(x: u32) -> u32 {
    // step 5 of the pipeline
    x + 5
}

fn step_6(x: u32) -> u32 {
    // step 6 of the pipeline
    x + 6
}

fn step_7(x: u32) -> u32 {
    // step 7 of the pipeline
    x + 7
}

fn step_8(x: u32) -> u32 {
    // step 8 of the pipeline
    x + 8
}

fn greeting(name: &str) -> String {
    format!("hello, {name}")
}
