// Replacing Synthase.so must relink every program that uses this crate: cargo does not know the
// plugin, so the build script watches it (SYNTHASE_PLUGIN, else the build tree next to the crate)
// and a change rebuilds this crate and, with it, everything that depends on it.
fn main() {
    println!("cargo:rerun-if-env-changed=SYNTHASE_PLUGIN");
    println!("cargo:rerun-if-changed=build.rs");
    let plugin = std::env::var("SYNTHASE_PLUGIN").unwrap_or_else(|_| {
        format!("{}/../../build/lib/Synthase.so", std::env::var("CARGO_MANIFEST_DIR").unwrap())
    });
    if std::path::Path::new(&plugin).exists() {
        println!("cargo:rerun-if-changed={plugin}");
    }
}
