//! Whole-process benchmarks of the `clientbank` binary: wall time and peak resident memory of
//! `check`, `check --json`, `parse --json` and `convert` on generated statements and on
//! pathological inputs, at several sizes each, with the growth from one size to the next so that
//! linear (or worse) growth shows.
//!
//! ```sh
//! cargo build --release -p clientbank -p clientbank-benches
//! target/release/whole                      # full sizes: up to 1M documents (about 1 GB of files)
//! target/release/whole --scale 0.01         # every size divided by 100: a quick try
//! target/release/whole --case statement --case keys --timeout 120
//! ```
//!
//! Options: `--scale F` multiplies every size; `--case NAME` (repeatable) runs only those cases
//! (`statement`, `findings`, `repeated-number`, `unclosed-sections`, `unknown-keys`);
//! `--bin PATH` the binary to measure (default: `clientbank` beside this one); `--timeout S` kills
//! a run after S seconds (default 900); `--dir DIR` where the generated files go (default: a new
//! folder under the system's temporary directory, removed at the end; each file is deleted once
//! measured).
//!
//! Peak memory is the child's maximum resident set: from GNU time (`/usr/bin/time`) when it is
//! installed, otherwise the high-water mark `VmHWM` of `/proc/PID/status` read every two
//! milliseconds until the child exits (which can miss a peak reached in the last milliseconds).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A kind of input and the sizes it is measured at (before `--scale`).
struct Case {
    name: &'static str,
    what: &'static str,
    unit: &'static str,
    sizes: [usize; 4],
    make: fn(usize) -> Vec<u8>,
}

const CASES: &[Case] = &[
    Case {
        name: "statement",
        what: "a statement the reader finds clean (its random INNs and accounts give payment findings)",
        unit: "documents",
        sizes: [125_000, 250_000, 500_000, 1_000_000],
        make: statement,
    },
    Case {
        name: "findings",
        what: "a statement with a finding (an unknown key) in every document",
        unit: "documents",
        sizes: [31_250, 62_500, 125_000, 250_000],
        make: findings,
    },
    Case {
        name: "repeated-number",
        what: "one document with the key `Номер=1` repeated",
        unit: "keys",
        sizes: [125_000, 250_000, 500_000, 1_000_000],
        make: repeated_number,
    },
    Case {
        name: "unclosed-sections",
        what: "`СекцияДокумент=` lines without a close",
        unit: "lines",
        sizes: [62_500, 125_000, 250_000, 500_000],
        make: unclosed_sections,
    },
    Case {
        name: "unknown-keys",
        what: "one document with distinct unknown keys",
        unit: "keys",
        sizes: [5_000, 10_000, 20_000, 40_000],
        make: unknown_keys,
    },
];

/// The commands measured on every file (`FILE` and `OUT` are replaced).
const COMMANDS: &[&[&str]] = &[
    &["check", "--today", "15.11.2026", "FILE"],
    &["check", "--json", "--today", "15.11.2026", "FILE"],
    &["parse", "--json", "FILE"],
    &["convert", "--today", "15.11.2026", "FILE", "-o", "OUT"],
];

fn cp1251(text: &str) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding_rs::WINDOWS_1251.encode(text);
    assert!(!unmappable, "CP1251 text");
    bytes.into_owned()
}

const HEADER: &str = "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\nОтправитель=Бухгалтерия предприятия, редакция 3.0\r\nПолучатель=\r\nДатаСоздания=15.11.2026\r\nВремяСоздания=10:00:00\r\nДатаНачала=15.11.2026\r\nДатаКонца=15.11.2026\r\nРасчСчет=40702810938000012345\r\n";

fn statement(documents: usize) -> Vec<u8> {
    clientbank_benches::statement(documents, 42)
}

fn findings(documents: usize) -> Vec<u8> {
    let clean = statement(documents);
    let marker = cp1251("ВидОплаты=01\r\n");
    let added = cp1251("ВидОплаты=01\r\nНеизвестныйКлюч=1\r\n");
    let mut out = Vec::with_capacity(clean.len() + documents * added.len());
    let mut rest = &clean[..];
    while let Some(at) = memchr::memmem::find(rest, &marker) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(&added);
        rest = &rest[at + marker.len()..];
    }
    out.extend_from_slice(rest);
    out
}

fn one_document(body: impl Fn(&mut String)) -> Vec<u8> {
    let mut text = String::from(HEADER);
    text.push_str("СекцияДокумент=Платежное поручение\r\nДата=15.11.2026\r\nСумма=100.00\r\n");
    body(&mut text);
    text.push_str("КонецДокумента\r\nКонецФайла\r\n");
    cp1251(&text)
}

fn repeated_number(keys: usize) -> Vec<u8> {
    one_document(|text| {
        for _ in 0..keys {
            text.push_str("Номер=1\r\n");
        }
    })
}

fn unclosed_sections(lines: usize) -> Vec<u8> {
    let mut text = String::from(HEADER);
    for _ in 0..lines {
        text.push_str("СекцияДокумент=Платежное поручение\r\n");
    }
    text.push_str("КонецФайла\r\n");
    cp1251(&text)
}

fn unknown_keys(keys: usize) -> Vec<u8> {
    one_document(|text| {
        use std::fmt::Write as _;
        text.push_str("Номер=1\r\n");
        for i in 0..keys {
            let _ = write!(text, "НеизвестныйКлюч{i}=значение\r\n");
        }
    })
}

/// One run: wall time, peak resident bytes (if known), exit status; `None` on timeout.
struct Run {
    wall: Duration,
    peak: Option<u64>,
    status: Option<ExitStatus>,
}

fn measure(bin: &Path, args: &[String], timeout: Duration, scratch: &Path) -> Run {
    let gnu_time = Path::new("/usr/bin/time");
    let report = scratch.join("time.txt");
    let use_time = gnu_time.is_file();
    let mut command = if use_time {
        let mut c = Command::new(gnu_time);
        c.arg("-f").arg("%M").arg("-o").arg(&report).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let start = Instant::now();
    let mut child = command.spawn().expect("start the clientbank binary");
    let status_path = format!("/proc/{}/status", child.id());
    let mut polled: Option<u64> = None;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            break Some(status);
        }
        if start.elapsed() > timeout {
            // GNU time runs the binary as its own child: end that one too.
            let children = format!("/proc/{0}/task/{0}/children", child.id());
            if let Ok(list) = std::fs::read_to_string(&children) {
                for pid in list.split_whitespace() {
                    let _ = Command::new("kill").arg("-KILL").arg(pid).status();
                }
            }
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        if !use_time && let Some(hwm) = vm_hwm(&status_path) {
            polled = Some(polled.map_or(hwm, |p| p.max(hwm)));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let wall = start.elapsed();
    let peak = if use_time {
        std::fs::read_to_string(&report)
            .ok()
            .and_then(|t| t.lines().last()?.trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    } else {
        polled
    };
    Run { wall, peak, status }
}

/// `VmHWM` of a running process, in bytes.
fn vm_hwm(status_path: &str) -> Option<u64> {
    let text = std::fs::read_to_string(status_path).ok()?;
    let kb = text.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    Some(
        kb.trim()
            .trim_end_matches("kB")
            .trim()
            .parse::<u64>()
            .ok()?
            * 1024,
    )
}

struct Options {
    scale: f64,
    cases: Vec<String>,
    bin: PathBuf,
    timeout: Duration,
    dir: Option<PathBuf>,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        scale: 1.0,
        cases: Vec::new(),
        bin: std::env::current_exe()
            .map_err(|e| e.to_string())?
            .with_file_name("clientbank"),
        timeout: Duration::from_secs(900),
        dir: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--scale" => {
                options.scale = value()?
                    .parse()
                    .ok()
                    .filter(|s: &f64| *s > 0.0 && s.is_finite())
                    .ok_or("--scale takes a positive number")?
            }
            "--case" => {
                let name = value()?;
                if !CASES.iter().any(|c| c.name == name) {
                    let names: Vec<_> = CASES.iter().map(|c| c.name).collect();
                    return Err(format!("no case {name}: {}", names.join(", ")));
                }
                options.cases.push(name);
            }
            "--bin" => options.bin = PathBuf::from(value()?),
            "--timeout" => {
                options.timeout = Duration::from_secs(
                    value()?
                        .parse()
                        .map_err(|_| "--timeout takes whole seconds")?,
                )
            }
            "--dir" => options.dir = Some(PathBuf::from(value()?)),
            other => {
                return Err(format!(
                    "unknown argument {other} (see the source's header)"
                ));
            }
        }
    }
    if !options.bin.is_file() {
        return Err(format!(
            "{} is not there: cargo build --release -p clientbank (or --bin PATH)",
            options.bin.display()
        ));
    }
    Ok(options)
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn main() {
    let options = options().unwrap_or_else(|e| {
        eprintln!("whole: {e}");
        std::process::exit(2);
    });
    let (dir, remove_dir) = match &options.dir {
        Some(dir) => (dir.clone(), false),
        None => (
            std::env::temp_dir().join(format!("clientbank-whole-{}", std::process::id())),
            true,
        ),
    };
    std::fs::create_dir_all(&dir).expect("the folder for generated files");
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "binary {}; peak memory from {}",
        options.bin.display(),
        if Path::new("/usr/bin/time").is_file() {
            "GNU time"
        } else {
            "/proc VmHWM polling"
        }
    );
    for case in CASES
        .iter()
        .filter(|c| options.cases.is_empty() || options.cases.iter().any(|n| n == c.name))
    {
        let _ = writeln!(out, "\n## {}: {}", case.name, case.what);
        let _ = writeln!(
            out,
            "{:>10} {:>9} | {:<12} {:>9} {:>9} {:>6} | {:>14} {:>14}",
            case.unit,
            "file MB",
            "command",
            "wall s",
            "peak MB",
            "×file",
            "time growth",
            "peak growth"
        );
        // Per command: (size, wall, peak) of the previous size.
        let mut previous: Vec<Option<(usize, f64, Option<u64>)>> = vec![None; COMMANDS.len()];
        // A command that timed out is not tried at the larger sizes.
        let mut timed_out = vec![false; COMMANDS.len()];
        for &size in &case.sizes {
            let size = ((size as f64 * options.scale).round() as usize).max(1);
            let file = dir.join(format!("{}-{size}.txt", case.name));
            let bytes = (case.make)(size);
            let file_len = bytes.len() as u64;
            std::fs::write(&file, &bytes).expect("write the generated file");
            drop(bytes);
            let output = dir.join("out.json");
            for (i, command) in COMMANDS.iter().enumerate() {
                let args: Vec<String> = command
                    .iter()
                    .map(|a| match *a {
                        "FILE" => file.display().to_string(),
                        "OUT" => output.display().to_string(),
                        other => other.to_string(),
                    })
                    .collect();
                let label = command
                    .iter()
                    .filter(|a| !matches!(**a, "FILE" | "OUT" | "-o" | "--today" | "15.11.2026"))
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" ");
                if timed_out[i] {
                    let _ = writeln!(
                        out,
                        "{size:>10} {:>9.1} | {label:<12} not run: timed out at a smaller size",
                        mb(file_len)
                    );
                    continue;
                }
                let run = measure(&options.bin, &args, options.timeout, &dir);
                timed_out[i] = run.status.is_none();
                let wall = run.wall.as_secs_f64();
                let peak = run.peak;
                let growth = |now: f64, before: f64, size_before: usize| {
                    format!(
                        "×{:.2}/×{:.2}",
                        now / before.max(1e-9),
                        size as f64 / size_before as f64
                    )
                };
                let (time_growth, peak_growth) = match previous[i] {
                    Some((size_before, wall_before, peak_before)) => (
                        growth(wall, wall_before, size_before),
                        match (peak, peak_before) {
                            (Some(p), Some(b)) => growth(p as f64, b as f64, size_before),
                            _ => "-".into(),
                        },
                    ),
                    None => ("-".into(), "-".into()),
                };
                let status = match run.status {
                    None => format!("  TIMEOUT after {} s", options.timeout.as_secs()),
                    Some(s) if s.code() == Some(0) || s.code() == Some(1) => String::new(),
                    Some(s) => format!("  ({s})"),
                };
                let _ = writeln!(
                    out,
                    "{:>10} {:>9.1} | {:<12} {:>9.3} {:>9} {:>6} | {:>14} {:>14}{status}",
                    size,
                    mb(file_len),
                    label,
                    wall,
                    peak.map_or("?".into(), |p| format!("{:.1}", mb(p))),
                    peak.map_or("?".into(), |p| format!("{:.2}", p as f64 / file_len as f64)),
                    time_growth,
                    peak_growth,
                );
                let _ = out.flush();
                previous[i] = run.status.map(|_| (size, wall, peak));
            }
            let _ = std::fs::remove_file(&file);
            let _ = std::fs::remove_file(&output);
        }
    }
    if remove_dir {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let _ = writeln!(
        out,
        "\ngrowth: ×time/×size from the previous size (×2.00/×2.00 is linear)"
    );
}
